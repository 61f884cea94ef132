import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { invalidField } from "@signalbox/protocol";
import type { FastifyRequest } from "fastify";
import {
  AdvancedPlaygroundRequest,
  AdvancedPlaygroundResponse,
  PlaygroundRequest,
  PlaygroundResponse,
} from "./schemas.js";
import type { PlaygroundService } from "./service.js";

const tags = ["Playground"];

// Schema validation reads a lone string where a list may stand as a list of one, so a
// misspelt `*` would quietly select no project; the reference refuses it, and so does this.
async function starOrList(request: FastifyRequest): Promise<void> {
  const projects = (request.body as { projects?: unknown } | undefined)?.projects;
  if (typeof projects === "string" && projects !== "*") {
    throw invalidField("projects", 'projects must be "*" or a list of project ids');
  }
}

/** Reads that change nothing, open to any admin caller, as the reference's. */
export const playgroundRoutes: FastifyPluginAsyncTypebox<{ playground: PlaygroundService }> = async (
  app,
  { playground },
) => {
  app.post(
    "/api/admin/playground",
    {
      config: { permission: "NONE" },
      preValidation: starOrList,
      schema: {
        tags,
        summary: "Every flag evaluated for a context in one environment, with the reasons",
        body: PlaygroundRequest,
        response: { 200: PlaygroundResponse },
      },
    },
    async (request) => {
      const { projects, environment, context } = request.body;
      return {
        input: { ...(projects === undefined ? {} : { projects }), environment, context },
        features: await playground.evaluate(request.actor, request.body),
      };
    },
  );

  app.post(
    "/api/admin/playground/advanced",
    {
      config: { permission: "NONE" },
      preValidation: starOrList,
      schema: {
        tags,
        summary: "Every flag evaluated in several environments for every combination of context values",
        body: AdvancedPlaygroundRequest,
        response: { 200: AdvancedPlaygroundResponse },
      },
    },
    async (request) => {
      const { features, invalidContextProperties } = await playground.evaluateAdvanced(
        request.actor,
        request.body,
      );
      // The question as asked: only what the schema knows of it (a body may carry more).
      const { projects, environments, context } = request.body;
      return {
        input: { ...(projects === undefined ? {} : { projects }), environments, context },
        features,
        ...(invalidContextProperties.length > 0 ? { warnings: { invalidContextProperties } } : {}),
      };
    },
  );
};
