import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { PersonalTokenService } from "../personal-tokens/service.js";
import { UserId, type UserView } from "../users/schemas.js";
import type { UserService } from "../users/service.js";
import { NewServiceAccount, ServiceAccount, ServiceAccountChanges, ServiceAccountList } from "./schemas.js";

const tags = ["Service accounts"];

/**
 * Service accounts, under /api/admin/service-account: users that never log in and act
 * through their personal access tokens, with the permissions of their root role.
 */
export const serviceAccountRoutes: FastifyPluginAsyncTypebox<{
  users: UserService;
  personalTokens: PersonalTokenService;
}> = async (app, { users, personalTokens }) => {
  /** The accounts as the API shows them: each with its tokens. */
  const withTokens = async (accounts: UserView[]) => {
    const tokens = await personalTokens.heldBy(accounts.map((account) => account.id));
    return accounts.map((account) => ({ ...account, tokens: tokens.get(account.id) ?? [] }));
  };

  app.get(
    "/api/admin/service-account",
    {
      schema: {
        tags,
        summary: "List the service accounts, with the root roles they can be given",
        response: { 200: ServiceAccountList },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => ({
      serviceAccounts: await withTokens(await users.list(request.actor, "service")),
      rootRoles: await users.rootRoles(request.actor),
    }),
  );

  app.post(
    "/api/admin/service-account",
    {
      schema: {
        tags,
        summary: "Create a service account",
        body: NewServiceAccount,
        response: { 201: ServiceAccount },
      },
      config: { permission: "ADMIN" },
    },
    async (request, reply) => {
      const { username, name, rootRole } = request.body;
      const created = await users.create(request.actor, { username, name, rootRole, isService: true });
      // A new account holds no tokens yet.
      return reply
        .status(201)
        .header("location", `service-account/${created.id}`)
        .send({ ...created, tokens: [] });
    },
  );

  app.put(
    "/api/admin/service-account/:id",
    {
      schema: {
        tags,
        summary: "Change a service account's name or root role",
        params: UserId,
        body: ServiceAccountChanges,
        response: { 200: ServiceAccount },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      const { name, rootRole } = request.body;
      const updated = await users.update(request.actor, request.params.id, { name, rootRole }, "service");
      const [account] = await withTokens([updated]);
      return account!;
    },
  );

  app.delete(
    "/api/admin/service-account/:id",
    {
      schema: {
        tags,
        summary: "Delete a service account: its tokens stop working at once",
        params: UserId,
        response: { 200: Type.Null() },
      },
      config: { permission: "ADMIN" },
    },
    async (request) => {
      await users.remove(request.actor, request.params.id, "service");
    },
  );
};
