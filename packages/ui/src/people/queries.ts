import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const fetchUsers = () => unwrap(api.GET("/api/admin/user-admin"));

/** Every person, with the root roles they can be given; only admins may list them. */
export const useUsers = (enabled = true) =>
  useQuery({ queryKey: queryKeys.users.list(), queryFn: fetchUsers, enabled });

export type UserList = Awaited<ReturnType<typeof fetchUsers>>;
export type User = UserList["users"][number];
export type RootRole = UserList["rootRoles"][number];

const fetchGroups = () => unwrap(api.GET("/api/admin/groups"));

export const useGroups = () => useQuery({ queryKey: queryKeys.groups.list(), queryFn: fetchGroups });

export type GroupView = Awaited<ReturnType<typeof fetchGroups>>["groups"][number];

const fetchRoles = () => unwrap(api.GET("/api/admin/roles"));

export const useRoles = () => useQuery({ queryKey: queryKeys.roles.list(), queryFn: fetchRoles });

export type Role = Awaited<ReturnType<typeof fetchRoles>>["roles"][number];

export const isPredefined = (role: Pick<Role, "type">) => role.type === "root" || role.type === "project";
export const isRootRole = (role: Pick<Role, "type">) => role.type === "root" || role.type === "root-custom";

/** One role with the permissions it holds. */
export const useRole = (id: number | undefined) =>
  useQuery({
    queryKey: queryKeys.roles.detail(id),
    queryFn: () => unwrap(api.GET("/api/admin/roles/{id}", { params: { path: { id: id ?? 0 } } })),
    enabled: id !== undefined,
  });
