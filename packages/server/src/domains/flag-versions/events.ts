declare module "../events/catalogue.js" {
  interface EventShapes {
    /**
     * A flag brought back to an earlier version (Signalbox's own, not in the reference):
     * recorded after the changes that did it, each recorded as a direct change records it.
     * `version` is the event id of the version restored; `environment` is null for the whole
     * flag (every environment and its dependencies).
     */
    "feature-version-restored": { data: { version: number; environment: string | null } };
  }
}

export {};
