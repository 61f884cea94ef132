import { anyOf } from "../../../db/any-of.js";
import type { Db } from "../../../db/connection.js";

/** A person as the flag view shows one: `createdBy` and each of `collaborators.users`. */
export interface FlagPerson {
  id: number;
  name: string;
  imageUrl: string;
}

const fields = ["u.id", "u.name", "u.username", "u.email", "u.image_url"] as const;

// The spec's order for a person's name; the image is the one stored, never a made-up one.
const person = (user: {
  id: number;
  name: string | null;
  username: string | null;
  email: string | null;
  image_url: string | null;
}): FlagPerson => ({
  id: user.id,
  name: user.name || user.username || user.email || "unknown",
  imageUrl: user.image_url ?? "",
});

/**
 * The people flags show, read from the users table and the flags' events: the flag view is
 * a read model, so it reads them here rather than through their domains.
 */
export const flagPeople = {
  /** The people among `ids`, by id; ids of tokens and the system have none. */
  async byId(db: Db, ids: readonly number[]): Promise<ReadonlyMap<number, FlagPerson>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom("users as u")
      .select(fields)
      .where("u.id", "in", [...new Set(ids)])
      .execute();
    return new Map(rows.map((row) => [row.id, person(row)]));
  },

  /**
   * Each person who wrote an event of the flags, once per flag, the latest first. As the
   * reference: no limit, and authors that are not people (tokens, the system) left out.
   */
  async authors(db: Db, names: readonly string[]): Promise<{ featureName: string; person: FlagPerson }[]> {
    if (names.length === 0) return [];
    const rows = await db
      .selectFrom("events as e")
      .innerJoin("users as u", "u.id", "e.created_by_user_id")
      .select(["e.feature_name", ...fields])
      .select((eb) => eb.fn.max("e.id").as("latest"))
      .where("e.feature_name", "=", anyOf(names))
      .groupBy(["e.feature_name", ...fields])
      .orderBy("latest", "desc")
      .execute();
    return rows.map((row) => ({ featureName: row.feature_name!, person: person(row) }));
  },
};
