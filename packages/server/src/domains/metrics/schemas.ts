import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";

export const ApplicationsQuery = Type.Object({
  query: Type.Optional(Type.String()),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  sortBy: Type.Optional(Type.Enum(["appName", "createdAt", "updatedAt"])),
  sortOrder: Type.Optional(Type.Enum(["asc", "desc"])),
});
export type ApplicationQuery = Required<Omit<Static<typeof ApplicationsQuery>, "query">> & { query?: string };

const DateTime = Type.String({ format: "date-time" });

const applicationFields = {
  appName: Type.String(),
  sdkVersion: Type.Optional(Type.String()),
  strategies: Type.Array(Type.String()),
  description: Type.String(),
  url: Type.String(),
  color: Type.String(),
  icon: Type.String(),
  createdAt: DateTime,
  usage: Type.Array(Type.Object({ project: Type.String(), environments: Type.Array(Type.String()) })),
};

/** An application that has registered or reported, with where its tokens put it. */
export const Application = Type.Object(applicationFields);
export type Application = Static<typeof Application>;

/** An application in the listing, with its instances summed up (Signalbox only: the reference lists neither). */
export const ApplicationSummary = Type.Object({
  ...applicationFields,
  instanceCount: Type.Integer({ minimum: 0, description: "The instances known, in every environment" }),
  sdkVersions: Type.Array(Type.String(), {
    description: "The SDK versions those instances reported, sorted",
  }),
  lastSeen: Nullable(
    Type.String({
      format: "date-time",
      description: "When an instance was last heard from; null if none ever was",
    }),
  ),
});
export type ApplicationSummary = Static<typeof ApplicationSummary>;

export const ApplicationList = Type.Object({
  total: Type.Integer(),
  applications: Type.Array(ApplicationSummary),
});

export const ApplicationParams = Type.Object({ appName: Type.String({ minLength: 1 }) });
export const InstanceParams = Type.Object({
  appName: Type.String({ minLength: 1 }),
  environment: Type.String({ minLength: 1 }),
});

const instanceFields = {
  instanceId: Type.String(),
  sdkVersion: Nullable(Type.String()),
  clientIp: Nullable(Type.String()),
  lastSeen: DateTime,
};

/** One running copy of an application, as its SDK last told of itself. */
export const Instance = Type.Object({
  ...instanceFields,
  environment: Type.String(),
  sdkType: Nullable(
    Type.String({ description: "`frontend` (through the frontend API) or `backend`; null if not yet known" }),
  ),
});
export type Instance = Static<typeof Instance>;

export const RecentInstances = Type.Object({ instances: Type.Array(Type.Object(instanceFields)) });
export type RecentInstances = Static<typeof RecentInstances>;

/** A flag an application evaluated; one no project holds is marked `notFound`. */
const SeenFlag = Type.Object({
  name: Type.String(),
  project: Type.Optional(Type.String()),
  notFound: Type.Optional(Type.Boolean()),
});

export const ApplicationDetail = Type.Object({
  ...applicationFields,
  instances: Type.Array(Instance),
  seenToggles: Type.Array(SeenFlag),
});
export type ApplicationDetail = Static<typeof ApplicationDetail>;

const Names = Type.Array(Type.String());

export const ApplicationOverview = Type.Object({
  projects: Names,
  featureCount: Type.Integer(),
  environments: Type.Array(
    Type.Object({
      name: Type.String(),
      instanceCount: Type.Integer(),
      sdks: Names,
      frontendSdks: Names,
      backendSdks: Names,
      lastSeen: Nullable(DateTime),
      issues: Type.Object({ missingFeatures: Names, outdatedSdks: Names }),
    }),
  ),
  issues: Type.Object({ missingStrategies: Names }),
});
export type ApplicationOverview = Static<typeof ApplicationOverview>;

export const ApplicationSettings = Type.Object({
  description: Type.Optional(Type.String()),
  url: Type.Optional(
    Type.String({ description: "An http:// or https:// link to the application, or empty for none" }),
  ),
  color: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  strategies: Type.Optional(Type.Array(Type.String())),
});
export type ApplicationSettings = Static<typeof ApplicationSettings>;

export const FlagNameParams = Type.Object({ name: Type.String({ minLength: 1 }) });

export const ExposureQuery = Type.Object({
  hoursBack: Type.Optional(Type.Integer({ minimum: 1, maximum: 48, default: 24 })),
});

const Count = Type.Integer({ minimum: 0 });

/** One hour of a flag's evaluations by one application in one environment. */
const HourlyExposure = Type.Object({
  featureName: Type.String(),
  appName: Type.String(),
  environment: Type.String(),
  timestamp: DateTime,
  yes: Count,
  no: Count,
  variants: Type.Optional(Type.Record(Type.String(), Count)),
});
export type HourlyExposure = Static<typeof HourlyExposure>;

export const FlagExposure = Type.Object({
  version: Type.Integer(),
  maturity: Type.String(),
  data: Type.Array(HourlyExposure),
});

const EnvironmentUsage = Type.Object({
  environment: Type.String(),
  timestamp: DateTime,
  yes: Count,
  no: Count,
});
export type EnvironmentUsage = Static<typeof EnvironmentUsage>;

export const FlagUsageSummary = Type.Object({
  version: Type.Integer(),
  maturity: Type.String(),
  featureName: Type.String(),
  lastHourUsage: Type.Array(EnvironmentUsage),
  seenApplications: Names,
});
