declare module "../../events/catalogue.js" {
  interface EventShapes {
    "feature-completed": { data: { status: string; statusValue?: string | null; kept: boolean } };
    "feature-uncompleted": Record<never, never>;
  }
}

export {};
