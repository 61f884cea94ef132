// Transitional: services move to importing the catalogue from @signalbox/protocol directly.
export * from "@signalbox/protocol";
