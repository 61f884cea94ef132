import type { Db } from "../../../db/connection.js";
import type { GroupProjects } from "../groups/service.js";
import { memberStore } from "./store.js";

/**
 * The projects each group holds a role in, as group listings show them. Read straight from
 * the memberships, with no service: groups are built before members, which ask groups about
 * their users.
 */
export const groupProjects: GroupProjects = {
  async projectsOfGroups(db: Db, groupIds: readonly number[]): Promise<Map<number, string[]>> {
    const projects = new Map<number, string[]>();
    for (const { group_id, project } of await memberStore.projectsOfGroups(db, groupIds)) {
      projects.set(group_id, [...(projects.get(group_id) ?? []), project]);
    }
    return projects;
  },
};
