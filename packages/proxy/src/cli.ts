#!/usr/bin/env node
// The command's entry. V8's memory settings come first, and the command is only imported
// once they are set, so that they already hold while its modules load.
import "./memory-flags.js";

await import("./command.js");
