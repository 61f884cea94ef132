export * from "./context.js";
export * from "./delta.js";
export * from "./errors.js";
export * from "./frontend.js";
export * from "./nullable.js";
export * from "./ofrep.js";
export * from "./sdk-document.js";
export * from "./sdk-reports.js";
