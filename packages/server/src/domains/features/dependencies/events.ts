/** A child's parents, by parent name, as its view shows them. */
interface Parents {
  parents: { feature: string; enabled: boolean; variants: string[] }[];
}

// preData (not in the reference): the child's parents before the change, so that it can be undone.
declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-dependency-added": {
      data: { feature: string; enabled: boolean; variants?: string[] };
      preData: Parents;
    };
    "feature-dependency-removed": { data: { feature: string }; preData: Parents };
    "feature-dependencies-removed": { preData: Parents };
  }
}

export {};
