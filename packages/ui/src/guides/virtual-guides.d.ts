// Written at build time by scripts/guides-plugin.ts from the repository's docs/*.md.
declare module "virtual:guides" {
  const guides: readonly { name: string; title: string }[];
  export default guides;
}
