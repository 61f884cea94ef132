import { validationError } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import type { EventService } from "../events/service.js";
import type { UserService } from "../users/service.js";
import { lockedRequest, type Projects, person, requireAuthorOrAdmin, requireOpen } from "./rules.js";
import { changeRequestStore as store } from "./store.js";

/** What is said about a request besides its changes: its title, whom it asks to review, comments. */
export class ChangeRequestDetails {
  constructor(
    private readonly events: EventService,
    private readonly others: { projects: Projects; users: Pick<UserService, "missing"> },
  ) {}

  async setTitle(actor: Actor, project: string, id: number, title: string): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await lockedRequest(this.others.projects, change.db, actor, project, id);
      requireAuthorOrAdmin(user, request, "change its title");
      requireOpen(request);
      await store.update(change.db, id, { title });
    });
  }

  async setReviewers(actor: Actor, project: string, id: number, reviewers: number[]): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      const request = await lockedRequest(this.others.projects, change.db, actor, project, id);
      requireAuthorOrAdmin(user, request, "choose its reviewers");
      requireOpen(request);
      const unknown = await this.others.users.missing(change.db, reviewers);
      if (unknown.length > 0) throw validationError(`No user has the id ${unknown.join(", ")}`);
      await store.setReviewers(change.db, id, reviewers);
    });
  }

  async comment(actor: Actor, project: string, id: number, text: string): Promise<void> {
    const user = person(actor);
    await this.events.change(actor, async (change) => {
      await lockedRequest(this.others.projects, change.db, actor, project, id);
      await store.comment(change.db, id, text, user.userId);
    });
  }
}
