import { invalidField, noAccess, notFound, validationError } from "@signalbox/protocol";
import { type Actor, actorName, actorUserId } from "../../access/actor.js";
import { hiddenProjects } from "../../access/can.js";
import type { IntegrationSettings } from "../../config.js";
import type { Db } from "../../db/connection.js";
import type { AddonParameters } from "../../db/schema.js";
import type { EventType } from "../events/catalogue.js";
import { EVENT_TYPES } from "../events/catalogue.js";
import { resource } from "../events/resource.js";
import type { StoredEvent } from "../events/schemas.js";
import type { Change, EventService } from "../events/service.js";
import type { ProjectService } from "../projects/service.js";
import type { TagTypeService } from "../tag-types/service.js";
import { AddonDelivery, consumerName } from "./delivery.js";
import type { AddonEventData } from "./events.js";
import { Outbound, RefusedDestination } from "./outbound.js";
import { PROVIDERS, type Provider } from "./providers.js";
import type {
  AddonInput,
  AddonView,
  IntegrationEventView,
  ParameterDefinition,
  ProviderDefinition,
} from "./schemas.js";
import {
  type AddonFields,
  type AddonRow,
  addonStore,
  type IntegrationEventRow,
  integrationEventStore,
} from "./store.js";
import { templateProblem } from "./template.js";

/** The flag a test send is about; no flag needs to exist by that name. */
export const TEST_FLAG = "signalbox-test-event";

/** What a sensitive parameter reads as; sent back unchanged, it keeps the stored value while the destination stays. */
export const MASK = "*****";

const KNOWN_EVENTS: ReadonlySet<string> = new Set(EVENT_TYPES);

/** The parameters that say where an addon sends: its URL (a fixed address, as the Slack App's, is no parameter). */
const isDestination = (definition: ParameterDefinition) => definition.type === "url";

const eventData = (row: AddonRow): AddonEventData => ({
  id: row.id,
  provider: row.provider,
  description: row.description,
  enabled: row.enabled,
  events: row.events,
  projects: row.projects,
  environments: row.environments,
});

const addons = resource({
  read: async (db: Db, id: number) => {
    const row = await addonStore.byId(db, id);
    return row && eventData(row);
  },
  missing: () => notFound("Could not find addon"),
  events: {
    created: "addon-config-created",
    updated: "addon-config-updated",
    deleted: "addon-config-deleted",
  },
});

/**
 * Addons (integrations): where events are sent, and the log of what was. Parameters marked
 * sensitive never leave the service in clear (nor reach its events or log lines); a
 * destination is checked when saved and again at every delivery (outbound.ts).
 */
export class AddonService {
  private readonly outbound: Outbound;
  private readonly delivery: AddonDelivery;
  private syncing: NodeJS.Timeout | undefined;
  private log: { error(details: object, message: string): void } | undefined;

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly links: {
      tagTypes: Pick<TagTypeService, "exists" | "create">;
      projects: Pick<ProjectService, "missing">;
    },
    settings: IntegrationSettings,
  ) {
    this.outbound = new Outbound(settings);
    this.delivery = new AddonDelivery(
      db,
      events.outbox,
      this.outbound,
      { slackApiUrl: settings.slackApiUrl },
      settings,
    );
  }

  /**
   * Starts delivering to the enabled addons, and looks every `syncMs` for addons enabled,
   * disabled or deleted on other instances (those changed here are seen at once).
   */
  async start(log: { error(details: object, message: string): void }, syncMs = 5000): Promise<void> {
    this.log = log;
    await this.delivery.sync();
    this.syncing = setInterval(() => void this.resync(), syncMs);
    this.syncing.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.syncing);
    await this.delivery.stop();
  }

  /** After a change has committed, whose answer must not depend on it: a failure is logged, and the next look tries again. */
  private resync(): Promise<void> {
    return this.delivery
      .sync()
      .catch((error) => this.log?.error({ err: error }, "addons: could not match deliveries to the addons"));
  }

  /** Addons that name a private project the actor may not see are left out, with the project. */
  async list(actor: Actor): Promise<{ addons: AddonView[]; providers: ProviderDefinition[] }> {
    const hidden = new Set(hiddenProjects(actor));
    const rows = (await addonStore.list(this.db)).filter((row) => !row.projects.some((p) => hidden.has(p)));
    return {
      addons: rows.map(view),
      providers: [...PROVIDERS.values()].map((provider) => provider.definition),
    };
  }

  async get(actor: Actor, id: number): Promise<AddonView> {
    return view(await this.visible(this.db, actor, id));
  }

  async create(actor: Actor, input: AddonInput): Promise<AddonView> {
    const fields = await this.fields(input);
    await this.requireScope(this.db, actor, fields.projects);
    const created = await this.events.change(actor, async (change) => {
      await this.ensureTagTypes(change, providerOf(fields.provider));
      const row = await addons.create(change, () => addonStore.insert(change.db, fields));
      if (fields.enabled) await this.events.outbox.open(change.db, consumerName(row.id));
      return row;
    });
    await this.resync();
    return this.get(actor, created.id);
  }

  /** Endpoint 3: the fields sent replace the stored ones; those absent stay; null empties. */
  async update(actor: Actor, id: number, input: AddonInput): Promise<AddonView> {
    const before = await this.changeable(this.db, actor, id);
    const fields = await this.fields(input, before);
    await this.requireScope(this.db, actor, fields.projects);
    await this.events.change(actor, async (change) => {
      await this.ensureTagTypes(change, providerOf(fields.provider));
      await addons.update(change, id, () => addonStore.update(change.db, id, fields));
      // Disabled, its cursor goes, so that enabled again it starts from then.
      if (fields.enabled) await this.events.outbox.open(change.db, consumerName(id));
      else await this.events.outbox.forget(change.db, consumerName(id));
    });
    await this.resync();
    return this.get(actor, id);
  }

  /** Deleting an addon that is not there is done already, as the reference answers. */
  async remove(actor: Actor, id: number): Promise<void> {
    await this.events.change(actor, async (change) => {
      if (!(await addonStore.byId(change.db, id))) return;
      await this.changeable(change.db, actor, id);
      await addons.remove(change, id, () => addonStore.remove(change.db, id));
      await this.events.outbox.forget(change.db, consumerName(id));
    });
    await this.resync();
  }

  /** What the addon delivered, less the events of private projects the actor may not see. */
  async deliveries(
    actor: Actor,
    id: number,
    page: { limit: number; offset: number },
  ): Promise<IntegrationEventView[]> {
    await this.visible(this.db, actor, id);
    const rows = await integrationEventStore.list(this.db, id, { ...page, hidden: hiddenProjects(actor) });
    return rows.map(deliveryView);
  }

  /**
   * Sends the addon a sample event now, enabled or not, through the delivery's own code and
   * checks, once and without retrying, and answers its log entry. The event is made up here
   * and never enters the event log, so nothing else (other addons, the outbox) sees it.
   */
  async test(actor: Actor, id: number): Promise<IntegrationEventView> {
    const addon = await this.changeable(this.db, actor, id);
    const event: StoredEvent = {
      id: 0,
      type: (addon.events[0] ?? "feature-created") as EventType,
      createdAt: new Date().toISOString(),
      createdBy: actorName(actor),
      createdByUserId: actorUserId(actor),
      project: "default",
      environment: null,
      featureName: TEST_FLAG,
      data: { name: TEST_FLAG, test: true },
      preData: null,
      tags: [],
    };
    const { id: entry } = await this.delivery.deliverOnce(addon, event, new AbortController().signal);
    const row = await integrationEventStore.byId(this.db, entry);
    if (!row) throw new Error(`delivery log entry ${entry} is missing`);
    return deliveryView(row);
  }

  private async require(db: Db, id: number): Promise<AddonRow> {
    const row = await addonStore.byId(db, id);
    if (!row) throw notFound("Could not find addon");
    return row;
  }

  /** An addon naming a private project the actor may not see does not exist for them. */
  private async visible(db: Db, actor: Actor, id: number): Promise<AddonRow> {
    const row = await this.require(db, id);
    const hidden = new Set(hiddenProjects(actor));
    if (row.projects.some((project) => hidden.has(project))) throw notFound("Could not find addon");
    return row;
  }

  /** An addon the actor may change: one whose events they may all read, wherever it sends them. */
  private async changeable(db: Db, actor: Actor, id: number): Promise<AddonRow> {
    const row = await this.visible(db, actor, id);
    await this.requireScope(db, actor, row.projects);
    return row;
  }

  /**
   * An addon delivers its projects' events to wherever it points: who sets it up must see
   * them all. A project they may not see is answered as one that does not exist; every
   * project (none named) takes someone who sees every project.
   */
  private async requireScope(db: Db, actor: Actor, projects: readonly string[]): Promise<void> {
    const hidden = new Set(hiddenProjects(actor));
    const named = projects.filter((project) => project !== "*");
    const missing = new Set(await this.links.projects.missing(db, named));
    projects.forEach((project, index) => {
      if (missing.has(project) || hidden.has(project)) {
        throw invalidField(`projects.${index}`, `Project ${project} does not exist`);
      }
    });
    if (named.length < projects.length || projects.length === 0) {
      if (hidden.size > 0) {
        throw noAccess(
          "An addon for every project delivers the events of projects you cannot see: name the projects it is for.",
        );
      }
    }
  }

  /** The row an input makes, over what is stored when it updates; every refusal is a 400 before anything is written. */
  private async fields(input: AddonInput, before?: AddonRow): Promise<AddonFields> {
    const provider = providerOf(input.provider);
    const events = input.events ?? [];
    events.forEach((type, index) => {
      if (!KNOWN_EVENTS.has(type)) throw invalidField(`events.${index}`, `${type} is not an event type`);
    });
    const description =
      input.description === undefined
        ? (before?.description ?? null)
        : input.description === null
          ? before
            ? ""
            : null
          : input.description;
    return {
      provider: provider.definition.name,
      enabled: input.enabled,
      description,
      events,
      projects: input.projects === undefined ? (before?.projects ?? []) : (input.projects ?? []),
      environments:
        input.environments === undefined ? (before?.environments ?? []) : (input.environments ?? []),
      parameters: await this.parameters(provider, input.parameters ?? {}, before),
    };
  }

  private async parameters(
    provider: Provider,
    sent: AddonParameters,
    before?: AddonRow,
  ): Promise<AddonParameters> {
    for (const [name, value] of Object.entries(sent)) {
      if (!["string", "number", "boolean"].includes(typeof value))
        throw invalidField(
          `parameters.${name}`,
          `parameters.${name} must be a string, a number or a boolean`,
        );
    }
    const definitions = provider.definition.parameters;
    const stored = before?.provider === provider.definition.name ? before.parameters : undefined;
    // A mask sent back stands for the stored value, but only while the addon sends where it
    // did: a secret meant for one destination is never handed to another.
    const resolved = (definition: ParameterDefinition, keep: AddonParameters | undefined) => {
      const value = sent[definition.name];
      const unmasked = definition.sensitive && value === MASK ? keep?.[definition.name] : value;
      return unmasked === "" ? undefined : unmasked;
    };
    const moved =
      stored !== undefined &&
      definitions.some(
        (definition) => isDestination(definition) && resolved(definition, stored) !== stored[definition.name],
      );
    const keep = moved ? undefined : stored;
    const kept: AddonParameters = {};
    // Only what the provider defines is kept.
    for (const definition of definitions) {
      const value = resolved(definition, keep);
      if (value !== undefined) kept[definition.name] = value;
    }
    const missing = definitions.filter(
      (definition) => definition.required && kept[definition.name] === undefined,
    );
    if (missing.length > 0) {
      const names = missing.map((definition) => definition.name);
      const dropped = moved ? names.filter((name) => sent[name] === MASK) : [];
      if (dropped.length === 0) throw validationError(`Missing required parameters: ${names.join(",")}`);
      const again = `must be sent again: the addon sends somewhere else now, and a stored secret never follows it there`;
      throw validationError(
        `Missing required parameters: ${names.join(",")}. ${dropped.join(", ")} ${again}.`,
        dropped.map((name) => ({ path: `parameters.${name}`, message: `parameters.${name} ${again}` })),
      );
    }

    for (const definition of definitions) {
      const value = kept[definition.name];
      if (value === undefined) continue;
      const path = `parameters.${definition.name}`;
      if (definition.type === "url") {
        try {
          await this.outbound.check(String(value));
        } catch (error) {
          if (error instanceof RefusedDestination) throw invalidField(path, `${path}: ${error.message}`);
          throw error;
        }
      }
      if (definition.name === "customHeaders" && !isHeaderObject(String(value))) {
        throw invalidField(path, `${path} must be a JSON object of header names and string values`);
      }
      if (definition.name === "bodyTemplate") {
        const problem = templateProblem(String(value));
        if (problem) throw invalidField(path, `${path} is not a valid template: ${problem}`);
      }
    }
    return kept;
  }

  /** The provider's tag types (slack, datadog), created when missing, as the reference does. */
  private async ensureTagTypes(change: Change, provider: Provider): Promise<void> {
    for (const tagType of provider.definition.tagTypes) {
      if (!(await this.links.tagTypes.exists(change.db, tagType.name)))
        await this.links.tagTypes.create(change.actor, tagType);
    }
  }
}

function providerOf(name: string): Provider {
  const provider = PROVIDERS.get(name);
  if (!provider) throw invalidField("provider", `Unknown addon provider ${name}`);
  return provider;
}

function deliveryView(row: IntegrationEventRow): IntegrationEventView {
  return {
    id: row.id,
    integrationId: row.integration_id,
    createdAt: row.created_at.toISOString(),
    state: row.state as IntegrationEventView["state"],
    stateDetails: row.state_details,
    event: row.event as StoredEvent,
    details: row.details,
    attempts: row.attempts as IntegrationEventView["attempts"],
  };
}

function view(row: AddonRow): AddonView {
  const provider = PROVIDERS.get(row.provider);
  const parameters = { ...row.parameters };
  for (const definition of provider?.definition.parameters ?? []) {
    if (definition.sensitive && parameters[definition.name] !== undefined) parameters[definition.name] = MASK;
  }
  return {
    id: row.id,
    provider: row.provider,
    description: row.description,
    enabled: row.enabled,
    parameters,
    events: row.events,
    projects: row.projects,
    environments: row.environments,
  };
}

function isHeaderObject(raw: string): boolean {
  try {
    const parsed: unknown = JSON.parse(raw);
    return (
      typeof parsed === "object" &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      Object.values(parsed).every((value) => typeof value === "string")
    );
  } catch {
    return false;
  }
}
