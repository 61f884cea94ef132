declare module "murmurhash3js" {
  const murmurhash3js: { x86: { hash32(text: string, seed?: number): number } };
  export default murmurhash3js;
}
