/**
 * The service's layer order, checked by `npm run lint`: a module may import its own layer and
 * the layers below it, never one above. Import cycles, type-only ones included, are Biome's
 * `noImportCycles` (it reads .tsx, which dependency-cruiser's swc parser does not).
 *
 * Each layer names folders (every file in them) and single files; a file named on its own
 * belongs to that layer even inside a folder named by another (a domain's read model sits in
 * the domain's folder but above its service). Paths are relative to packages/server/src.
 * The picture of these layers is in packages/server/README.md.
 */
const layers = [
  {
    name: "kernel",
    folders: ["db", "shared", "access", "domains/events", "domains/change-gate"],
    files: ["telemetry.ts", "logging.ts", "config.ts", "cli-common.ts"],
  },
  {
    name: "catalogues",
    folders: [
      "domains/environments",
      "domains/context-fields",
      "domains/tag-types",
      "domains/strategy-definitions",
    ],
  },
  { name: "roles", folders: ["domains/access/roles"] },
  {
    name: "people",
    folders: [
      "domains/users",
      "domains/personal-tokens",
      "domains/service-accounts",
      "domains/sessions",
      "domains/sso",
    ],
  },
  { name: "projects", folders: ["domains/projects"] },
  {
    name: "project access",
    folders: ["domains/access/grants", "domains/access/groups", "domains/access/members", "domains/tokens"],
  },
  {
    name: "flags",
    folders: ["domains/features/flags", "domains/segments"],
    files: ["domains/features/params.ts"],
  },
  {
    name: "flag parts",
    folders: [
      "domains/features/strategies",
      "domains/features/variants",
      "domains/features/tags",
      "domains/features/dependencies",
      "domains/features/lifecycle",
    ],
  },
  {
    name: "flag consumers",
    // The staleness job marks flags stale: it writes, so it is no read model like the rest of insights.
    files: ["domains/insights/staleness.ts", "domains/insights/lifetimes.ts", "domains/insights/events.ts"],
    folders: [
      "domains/favorites",
      "domains/metrics",
      "domains/impact-metrics",
      "domains/client-api",
      "domains/frontend-api",
      "domains/playground",
      "domains/addons",
    ],
  },
  {
    name: "read models",
    folders: ["domains/features/view", "domains/insights"],
    files: ["domains/projects/overview.ts"],
  },
  {
    name: "use cases",
    folders: [
      "domains/change-requests",
      "domains/import-export",
      "domains/features/editing",
      "domains/release-plans",
      "domains/flag-versions",
    ],
    files: ["domains/projects/lifecycle.ts"],
  },
  {
    name: "http",
    folders: ["http", "compare"],
    files: [
      "[^/]+/routes\\.ts",
      "[^/]+/[^/]+/routes\\.ts",
      "[^/]+/[^/]+/[^/]+/routes\\.ts",
      "app\\.ts",
      "server\\.ts",
      "startup\\.ts",
      "cli\\.ts",
      "index\\.ts",
      "openapi-document\\.ts",
      "signalbox-cli\\.ts",
      "compare-command\\.ts",
      "export-order\\.ts",
      "import-chunks\\.ts",
    ],
  },
];

const root = "^packages/server/src/";
const escapeDots = (text) => text.replace(/[.]/g, "\\.");
const folder = (path) => `${root}${escapeDots(path)}/`;
const file = (path) => `${root}${path.includes("\\") ? path : escapeDots(path)}$`;
const union = (patterns) => (patterns.length ? `(${patterns.join("|")})` : "^$");

const filePatterns = layers.map((layer) => (layer.files ?? []).map(file));
const folderPatterns = layers.map((layer) => (layer.folders ?? []).map(folder));
const allFiles = filePatterns.flat();

const forbidden = layers.flatMap((layer, rank) => {
  const above = layers
    .slice(rank + 1)
    .flatMap((_, offset) => [...folderPatterns[rank + 1 + offset], ...filePatterns[rank + 1 + offset]]);
  if (!above.length) return [];
  const notAbove = layers.slice(0, rank + 1).flatMap((_, lower) => filePatterns[lower]);
  const to = { path: union(above), pathNot: union(notAbove) };
  const comment = `The ${layer.name} layer imports only its own layer and those below it.`;
  return [
    {
      name: `no-upward-import-from-${layer.name.replace(" ", "-")}`,
      comment,
      severity: "error",
      from: { path: union(folderPatterns[rank]), pathNot: union(allFiles) },
      to,
    },
    {
      name: `no-upward-import-from-${layer.name.replace(" ", "-")}`,
      comment,
      severity: "error",
      from: { path: union(filePatterns[rank]) },
      to,
    },
  ];
});

module.exports = {
  forbidden: [
    ...forbidden,
    {
      name: "every-module-has-a-layer",
      comment: "A new folder or top-level file of the service is placed in the layer order above.",
      severity: "error",
      from: { path: root, pathNot: union([...folderPatterns.flat(), ...allFiles]) },
      to: {},
    },
  ],
  options: {
    parser: "swc",
    tsConfig: { fileName: "packages/server/tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    includeOnly: root,
  },
};
