#!/usr/bin/env node
// A committed entry point, so npm can link the bin before the first build;
// the program itself is the built dist/signalbox-cli.js.
await import("../dist/signalbox-cli.js");
