import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { compression } from "vite-plugin-compression2";
import { guides } from "./scripts/guides-plugin";

// `npm run dev` serves the UI with hot reload and sends API calls to a service on 4242.
const service = process.env.SIGNALBOX_URL ?? "http://127.0.0.1:4242";

export default defineConfig({
  plugins: [
    react(),
    // The repository's guides (docs/*.md), readable from the help menu.
    guides(fileURLToPath(new URL("../../docs", import.meta.url))),
    // Compressed once at build time; the service sends the variant a browser accepts.
    compression({ algorithms: ["gzip", "brotliCompress"], threshold: 1024 }),
  ],
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: {
    // Whole path segments: a bare "/api" prefix would also send the UI's own /api-tokens page to the service.
    proxy: { "^/(api|auth|logout|docs)(/|$)": service },
  },
});
