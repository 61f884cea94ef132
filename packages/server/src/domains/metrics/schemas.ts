import { type Static, Type } from "typebox";

export const ApplicationsQuery = Type.Object({
  query: Type.Optional(Type.String()),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  sortBy: Type.Optional(Type.Enum(["appName", "createdAt", "updatedAt"])),
  sortOrder: Type.Optional(Type.Enum(["asc", "desc"])),
});
export type ApplicationQuery = Required<Omit<Static<typeof ApplicationsQuery>, "query">> & { query?: string };

/** An application that has registered or reported, with where its tokens put it. */
export const Application = Type.Object({
  appName: Type.String(),
  sdkVersion: Type.Optional(Type.String()),
  strategies: Type.Array(Type.String()),
  description: Type.String(),
  url: Type.String(),
  color: Type.String(),
  icon: Type.String(),
  createdAt: Type.String({ format: "date-time" }),
  usage: Type.Array(Type.Object({ project: Type.String(), environments: Type.Array(Type.String()) })),
});
export type Application = Static<typeof Application>;

export const ApplicationList = Type.Object({ total: Type.Integer(), applications: Type.Array(Application) });
