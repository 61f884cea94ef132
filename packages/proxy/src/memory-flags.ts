import { setFlagsFromString } from "node:v8";

// V8's memory settings for the standalone process, which alone imports this (an embedding
// host keeps its own), before the rest of the proxy loads. V8 reads both whenever it sizes a
// space, so setting them at run time holds, and the command needs no options given to node
// (which a package's bin cannot pass on every platform; the growth factor below, given on
// node's command line, was not honoured either). bench/README.md has the figures.
//
// The young generation starts with 1 MB semi-spaces and doubles them under allocation, up to
// 16 MB each, and keeps them once grown: some 30 MB more resident, for nothing in a process
// where nearly every object dies with its request. A factor of 1 keeps them at 1 MB:
// scavenges come 15 times as often, each smaller, for the same CPU time per request.
setFlagsFromString("--semi-space-growth-factor=1");

// With small semi-spaces more short-lived objects reach the old generation, which V8 then lets
// grow to up to 4x its live size before a full collection: 10 MB more resident under load.
// 1.5x keeps the peak under 90 MB at 350 flags, for a few more full collections of a ~20 MB heap.
setFlagsFromString("--heap-growing-percent=50");
