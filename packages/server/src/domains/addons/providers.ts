import type { AddonParameters } from "../../db/schema.js";
import { CHANGE_REQUEST_EVENT_TYPES, type EventType } from "../events/catalogue.js";
import type { StoredEvent } from "../events/schemas.js";
import { describeEvent, markdownBold, slackBold } from "./messages.js";
import type { OutboundRequest } from "./outbound.js";
import type { ParameterDefinition, ProviderDefinition } from "./schemas.js";
import { renderTemplate } from "./template.js";

/** What a provider may ask about while it turns an event into requests. */
export interface DeliveryContext {
  /** The Slack Web API's base URL. */
  slackApiUrl: string;
}

export interface Provider {
  definition: ProviderDefinition;
  /** The requests one event becomes; none when it has nowhere to go (said as the reason). */
  requests(
    event: StoredEvent,
    parameters: AddonParameters,
    context: DeliveryContext,
  ): Promise<OutboundRequest[] | { nowhere: string }>;
}

const FLAG_EVENTS: EventType[] = [
  "feature-created",
  "feature-metadata-updated",
  "feature-project-change",
  "feature-archived",
  "feature-revived",
  "feature-deleted",
  "feature-strategy-add",
  "feature-strategy-update",
  "feature-strategy-remove",
  "strategy-order-changed",
  "feature-stale-on",
  "feature-stale-off",
  "feature-potentially-stale-on",
  "feature-environment-enabled",
  "feature-environment-disabled",
  "feature-variants-updated",
  "feature-environment-variants-updated",
  "feature-tagged",
  "feature-untagged",
  "feature-completed",
  "feature-uncompleted",
  "feature-dependency-added",
  "feature-dependency-removed",
  "feature-dependencies-removed",
];

/** What moves a release without a person, besides the strategy changes it makes: the reference's webhook offers these. */
const RELEASE_EVENTS: EventType[] = [
  "release-plan-milestone-started",
  "release-plan-progressions-paused",
  "release-plan-progressions-resumed",
  "safeguard-triggered",
];

const ADMIN_EVENTS: EventType[] = [
  "project-created",
  "project-updated",
  "project-archived",
  "project-revived",
  "project-deleted",
  "segment-created",
  "segment-updated",
  "segment-deleted",
  "user-created",
  "user-updated",
  "user-deleted",
  "group-created",
  "group-updated",
  "group-deleted",
  "api-token-created",
  "api-token-updated",
  "api-token-deleted",
  "addon-config-created",
  "addon-config-updated",
  "addon-config-deleted",
];

const parameter = (
  name: string,
  displayName: string,
  type: ParameterDefinition["type"],
  options: Partial<Omit<ParameterDefinition, "name" | "displayName" | "type">> = {},
): ParameterDefinition => ({ name, displayName, type, required: false, sensitive: false, ...options });

const customHeaders = parameter("customHeaders", "Extra HTTP headers", "textfield", {
  description: 'Headers sent with every request, as a JSON object: {"X-Api-Version": "2"}',
  placeholder: '{"Header-Name": "value"}',
  sensitive: true,
});

const bodyTemplate = (description: string) =>
  parameter("bodyTemplate", "Body template", "textfield", {
    description:
      `${description} Mustache fields: {{event.type}}, {{event.createdBy}}, {{event.data.name}}, ` +
      "{{feature}}, {{project}}, {{environment}}, {{user}}, {{{eventJson}}}, {{eventMarkdown}}.",
  });

const text = (value: AddonParameters[string] | undefined): string =>
  value === undefined ? "" : String(value);

/** Extra headers, as stored: a JSON object of strings, checked when the addon was saved. */
export const parseHeaders = (raw: AddonParameters[string] | undefined): Record<string, string> =>
  text(raw).trim() ? (JSON.parse(text(raw)) as Record<string, string>) : {};

const isJson = (contentType: string) => /[/+]json\b/i.test(contentType);

const webhook: Provider = {
  definition: {
    name: "webhook",
    displayName: "Webhook",
    description: "Sends an HTTP POST for each event, with the event as JSON or a body of your own.",
    documentationUrl: "https://docs.getunleash.io/reference/integrations/webhook",
    parameters: [
      parameter("url", "Webhook URL", "url", { required: true, sensitive: true }),
      parameter("contentType", "Content-Type", "text", {
        description: "The Content-Type header of the request.",
        placeholder: "application/json",
      }),
      parameter("authorization", "Authorization", "text", {
        description: "The Authorization header of the request.",
        sensitive: true,
      }),
      customHeaders,
      bodyTemplate("The request's body; without one, the event as JSON."),
    ],
    events: [...FLAG_EVENTS, ...RELEASE_EVENTS, ...CHANGE_REQUEST_EVENT_TYPES],
    tagTypes: [],
  },
  async requests(event, parameters) {
    const contentType = text(parameters.contentType) || "application/json";
    const template = text(parameters.bodyTemplate);
    const headers: Record<string, string> = {
      ...parseHeaders(parameters.customHeaders),
      "content-type": contentType,
    };
    if (text(parameters.authorization)) headers.authorization = text(parameters.authorization);
    const body = template ? renderTemplate(template, event, isJson(contentType)) : JSON.stringify(event);
    return [{ url: text(parameters.url), headers, body }];
  },
};

const SLACK_TAG = {
  name: "slack",
  description: "Slack channels a flag's events are posted to.",
  icon: "S",
};

/** A flag's slack tags: the channels its events go to. */
const slackChannels = (event: StoredEvent) =>
  event.tags.filter((tag) => tag.type === "slack").map((tag) => tag.value);

/** What Slack shows of an event: its sentence, cut where Slack would. */
const slackText = (event: StoredEvent) => describeEvent(event, slackBold).slice(0, 3000);

/**
 * Slack's incoming webhooks, which the spec counts among the default providers and the
 * reference keeps for addons made before its Slack App (it refuses new ones; here they may
 * still be made). The message is the reference's, less its button to the flag: this service
 * does not know the address its users reach it at.
 */
const slack: Provider = {
  definition: {
    name: "slack",
    displayName: "Slack (incoming webhook)",
    description:
      "Posts events to Slack through an incoming webhook: to the channels a flag names in its slack tags, else to the default channel. Deprecated: the Slack App is preferred.",
    documentationUrl: "https://docs.getunleash.io/reference/integrations/slack",
    parameters: [
      parameter("url", "Slack webhook URL", "url", { required: true, sensitive: true }),
      parameter("username", "Username", "text", {
        description: 'The name the messages are posted under; "Signalbox" when empty.',
        placeholder: "Signalbox",
      }),
      parameter("emojiIcon", "Emoji icon", "text", {
        description: "The emoji the messages are posted with (:rocket:); the webhook's own icon when empty.",
        placeholder: ":rocket:",
      }),
      parameter("defaultChannel", "Default channel", "text", {
        description: "The channel events go to when their flag has no slack tags.",
        required: true,
      }),
      customHeaders,
    ],
    events: [
      "feature-created",
      "feature-archived",
      "feature-revived",
      "feature-stale-on",
      "feature-stale-off",
      "feature-environment-enabled",
      "feature-environment-disabled",
      "feature-strategy-remove",
      "feature-strategy-update",
      "feature-strategy-add",
      "feature-metadata-updated",
      "feature-variants-updated",
      "feature-project-change",
      "feature-potentially-stale-on",
    ],
    tagTypes: [SLACK_TAG],
  },
  async requests(event, parameters) {
    const tagged = slackChannels(event);
    const channels = tagged.length > 0 ? [...new Set(tagged)] : [text(parameters.defaultChannel)];
    const emoji = text(parameters.emojiIcon);
    return channels.map((channel) => ({
      url: text(parameters.url),
      target: channel,
      headers: { ...parseHeaders(parameters.customHeaders), "content-type": "application/json" },
      body: JSON.stringify({
        username: text(parameters.username) || "Signalbox",
        ...(emoji ? { icon_emoji: emoji } : {}),
        text: slackText(event),
        channel: `#${channel}`,
      }),
    }));
  },
};

const slackApp: Provider = {
  definition: {
    name: "slack-app",
    displayName: "Slack App",
    description:
      "Posts events to Slack channels through a Slack app's bot token: the default channels, and the channels a flag names in its slack tags.",
    documentationUrl: "https://docs.getunleash.io/reference/integrations/slack-app",
    parameters: [
      parameter("accessToken", "Bot token", "text", {
        description: "The app's bot token (xoxb-…), with the chat:write scope.",
        required: true,
        sensitive: true,
      }),
      parameter("defaultChannels", "Default channels", "text", {
        description: "Comma-separated channels every event is posted to, beside the flag's slack tags.",
        placeholder: "general, releases",
      }),
    ],
    events: [...FLAG_EVENTS, ...RELEASE_EVENTS, ...CHANGE_REQUEST_EVENT_TYPES, ...ADMIN_EVENTS],
    tagTypes: [SLACK_TAG],
  },
  async requests(event, parameters, context) {
    const tagged = slackChannels(event);
    const defaults = text(parameters.defaultChannels)
      .split(",")
      .map((channel) => channel.trim())
      .filter(Boolean);
    const channels = [...new Set([...tagged, ...defaults])];
    if (channels.length === 0) {
      return { nowhere: "No Slack channel: set default channels, or tag the flag with slack tags." };
    }
    const message = slackText(event);
    return channels.map((channel) => ({
      url: `${context.slackApiUrl.replace(/\/$/, "")}/chat.postMessage`,
      target: channel,
      headers: {
        "content-type": "application/json; charset=utf-8",
        authorization: `Bearer ${text(parameters.accessToken)}`,
      },
      body: JSON.stringify({
        channel,
        text: message,
        blocks: [{ type: "section", text: { type: "mrkdwn", text: message } }],
      }),
      // The Web API answers 200 to nearly everything, and says in the body whether it worked.
      accepted: (_status, body) => {
        try {
          return (JSON.parse(body) as { ok?: unknown }).ok === true;
        } catch {
          return false;
        }
      },
    }));
  },
};

/**
 * Microsoft Teams: an Adaptive Card posted to a channel. `teams` (incoming webhooks) and
 * `teamsworkflow` (a Workflows "when a webhook request is received" flow) take the same card,
 * in the same message envelope; both names are kept, as addons made in the reference use either.
 */
const teamsProvider = (name: string, displayName: string, urlDescription: string): Provider => ({
  definition: {
    name,
    displayName,
    description: "Posts events as Adaptive Cards to a Microsoft Teams channel.",
    documentationUrl: "https://docs.getunleash.io/reference/integrations/teams",
    parameters: [
      parameter("url", "Webhook URL", "url", {
        description: urlDescription,
        required: true,
        sensitive: true,
      }),
      customHeaders,
    ],
    events: [...FLAG_EVENTS, ...RELEASE_EVENTS, ...CHANGE_REQUEST_EVENT_TYPES],
    tagTypes: [],
  },
  async requests(event, parameters) {
    const facts = [
      ["Event", event.type],
      ["Flag", event.featureName],
      ["Project", event.project],
      ["Environment", event.environment],
      ["By", event.createdBy],
    ]
      .filter(([, value]) => value)
      .map(([title, value]) => ({ title, value }));
    const card = {
      $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
      type: "AdaptiveCard",
      version: "1.4",
      body: [
        { type: "TextBlock", text: "Signalbox", weight: "Bolder", size: "Medium" },
        { type: "TextBlock", text: describeEvent(event, markdownBold), wrap: true },
        { type: "FactSet", facts },
      ],
    };
    return [
      {
        url: text(parameters.url),
        headers: { ...parseHeaders(parameters.customHeaders), "content-type": "application/json" },
        body: JSON.stringify({
          type: "message",
          attachments: [
            { contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card },
          ],
        }),
      },
    ];
  },
});

const teams = teamsProvider("teams", "Microsoft Teams", "The channel's incoming webhook URL.");
const teamsWorkflow = teamsProvider(
  "teamsworkflow",
  "Microsoft Teams (Workflows)",
  'The URL of a Teams workflow started by "When a Teams webhook request is received".',
);

const NEW_RELIC_TAG = {
  name: "new-relic",
  description: "Tags of a flag, for its events in New Relic.",
  icon: "N",
};

/** A flat attribute New Relic's Event API keeps; nested values are left out. */
const isAttribute = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

const newRelic: Provider = {
  definition: {
    name: "new-relic",
    displayName: "New Relic",
    description: "Sends events to New Relic's Event API, as UnleashServiceEvent events.",
    documentationUrl: "https://docs.getunleash.io/reference/integrations",
    parameters: [
      parameter("url", "New Relic Event API URL", "url", {
        description:
          "https://insights-collector.newrelic.com/v1/accounts/<account id>/events, or your region's endpoint.",
        required: true,
      }),
      parameter("licenseKey", "License key", "text", { required: true, sensitive: true }),
      customHeaders,
      bodyTemplate("The event sent, as JSON with an eventType; without one, the event's fields."),
    ],
    events: FLAG_EVENTS,
    tagTypes: [NEW_RELIC_TAG],
  },
  async requests(event, parameters) {
    const template = text(parameters.bodyTemplate);
    const createdAt = new Date(event.createdAt).getTime();
    // The reference's attribute names, so that queries written for it keep working; the
    // event's own fields win over its data's.
    const data =
      typeof event.data === "object" && event.data !== null
        ? Object.entries(event.data).filter(([, value]) => isAttribute(value))
        : [];
    const body = template
      ? renderTemplate(template, event, true)
      : JSON.stringify({
          ...Object.fromEntries(data),
          eventType: "UnleashServiceEvent",
          unleashEventType: event.type,
          featureName: event.featureName,
          environment: event.environment,
          project: event.project,
          createdBy: event.createdBy,
          createdByUserId: event.createdByUserId,
          createdAt,
          timestamp: createdAt,
        });
    return [
      {
        url: text(parameters.url),
        headers: {
          ...parseHeaders(parameters.customHeaders),
          "content-type": "application/json",
          "api-key": text(parameters.licenseKey),
        },
        body,
        gzip: true,
      },
    ];
  },
};

const DATADOG_EVENTS_URL = "https://api.datadoghq.com/api/v1/events";
const DATADOG_TAG = {
  name: "datadog",
  description: "Tags sent with a flag's events to Datadog's event stream.",
  icon: "D",
};

const datadog: Provider = {
  definition: {
    name: "datadog",
    displayName: "Datadog",
    description: "Sends events to Datadog's event stream, with the flag's tags.",
    documentationUrl: "https://docs.getunleash.io/reference/integrations/datadog",
    parameters: [
      parameter("url", "Datadog events URL", "url", {
        description: `The events API of your Datadog site; ${DATADOG_EVENTS_URL} when empty.`,
        placeholder: DATADOG_EVENTS_URL,
      }),
      parameter("apiKey", "API key", "text", { required: true, sensitive: true }),
      parameter("sourceTypeName", "Source type", "text", {
        description: "Datadog's source_type_name of the events.",
      }),
      customHeaders,
      bodyTemplate("The event's text; without one, a sentence saying what happened."),
    ],
    events: FLAG_EVENTS,
    tagTypes: [DATADOG_TAG],
  },
  async requests(event, parameters) {
    const template = text(parameters.bodyTemplate);
    const message = template ? renderTemplate(template, event, false) : describeEvent(event, markdownBold);
    const tags = [...new Set(event.tags.map((tag) => `${tag.type}:${tag.value}`))];
    const sourceTypeName = text(parameters.sourceTypeName);
    return [
      {
        url: text(parameters.url) || DATADOG_EVENTS_URL,
        headers: {
          ...parseHeaders(parameters.customHeaders),
          "content-type": "application/json",
          "dd-api-key": text(parameters.apiKey),
        },
        body: JSON.stringify({
          text: `%%% \n${message}\n %%% `,
          title: "Signalbox notification update",
          tags,
          ...(sourceTypeName ? { source_type_name: sourceTypeName } : {}),
        }),
      },
    ];
  },
};

/** The providers this service delivers to, by name. */
export const PROVIDERS: ReadonlyMap<string, Provider> = new Map(
  [webhook, slack, slackApp, teams, teamsWorkflow, datadog, newRelic].map((provider) => [
    provider.definition.name,
    provider,
  ]),
);
