import { invalidField, notFound, validationError } from "@signalbox/protocol";
import { type Actor, actorName, actorUserId } from "../../access/actor.js";
import type { IntegrationSettings } from "../../config.js";
import type { Db } from "../../db/connection.js";
import type { AddonParameters } from "../../db/schema.js";
import type { AddonEventData, EventType } from "../events/catalogue.js";
import { EVENT_TYPES } from "../events/catalogue.js";
import { resource } from "../events/resource.js";
import type { StoredEvent } from "../events/schemas.js";
import type { Change, EventService } from "../events/service.js";
import type { FeatureTagService } from "../features/tags/service.js";
import type { TagTypeService } from "../tag-types/service.js";
import { AddonDelivery, consumerName } from "./delivery.js";
import { Outbound, RefusedDestination } from "./outbound.js";
import { PROVIDERS, type Provider } from "./providers.js";
import type { AddonInput, AddonView, IntegrationEventView, ProviderDefinition } from "./schemas.js";
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

/** What a sensitive parameter reads as; sent back unchanged, it keeps the stored value. */
export const MASK = "*****";

const KNOWN_EVENTS: ReadonlySet<string> = new Set(EVENT_TYPES);

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
      featureTags: Pick<FeatureTagService, "ofFlags">;
    },
    settings: IntegrationSettings,
  ) {
    this.outbound = new Outbound(settings);
    this.delivery = new AddonDelivery(
      db,
      events.outbox,
      this.outbound,
      { tagsOf: (event) => this.tagsOf(event), slackApiUrl: settings.slackApiUrl },
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

  async list(_actor: Actor): Promise<{ addons: AddonView[]; providers: ProviderDefinition[] }> {
    const rows = await addonStore.list(this.db);
    return {
      addons: rows.map(view),
      providers: [...PROVIDERS.values()].map((provider) => provider.definition),
    };
  }

  async get(_actor: Actor, id: number): Promise<AddonView> {
    return view(await this.require(this.db, id));
  }

  async create(actor: Actor, input: AddonInput): Promise<AddonView> {
    const fields = await this.fields(input);
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
    const before = await this.require(this.db, id);
    const fields = await this.fields(input, before);
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
      await addons.remove(change, id, () => addonStore.remove(change.db, id));
      await this.events.outbox.forget(change.db, consumerName(id));
    });
    await this.resync();
  }

  async deliveries(
    _actor: Actor,
    id: number,
    page: { limit: number; offset: number },
  ): Promise<IntegrationEventView[]> {
    await this.require(this.db, id);
    const rows = await integrationEventStore.list(this.db, id, page.limit, page.offset);
    return rows.map(deliveryView);
  }

  /**
   * Sends the addon a sample event now, enabled or not, through the delivery's own code and
   * checks, once and without retrying, and answers its log entry. The event is made up here
   * and never enters the event log, so nothing else (other addons, the outbox) sees it.
   */
  async test(actor: Actor, id: number): Promise<IntegrationEventView> {
    const addon = await this.require(this.db, id);
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
    const kept: AddonParameters = {};
    // Only what the provider defines is kept; a mask sent back stands for the stored value.
    for (const definition of provider.definition.parameters) {
      let value = sent[definition.name];
      if (definition.sensitive && value === MASK) {
        value =
          before?.provider === provider.definition.name ? before.parameters[definition.name] : undefined;
      }
      if (value !== undefined && value !== "") kept[definition.name] = value;
    }
    const missing = provider.definition.parameters
      .filter((definition) => definition.required && kept[definition.name] === undefined)
      .map((definition) => definition.name);
    if (missing.length > 0) throw validationError(`Missing required parameters: ${missing.join(",")}`);

    for (const definition of provider.definition.parameters) {
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

  private async tagsOf(event: StoredEvent): Promise<{ type: string; value: string }[]> {
    const own = event.tags.map(({ type, value }) => ({ type, value }));
    if (!event.featureName) return own;
    const current = await this.links.featureTags.ofFlags(this.db, [event.featureName]);
    return [...own, ...current.map(({ type, value }) => ({ type, value }))];
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
