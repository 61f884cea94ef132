// Creates the benchmark's flags through the Unleash admin API. The same calls go to the
// reference service and to Signalbox, which is itself a check that the admin API matches.
import type { ClientFeatures } from "@signalbox/engine";

async function call(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: token, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

export async function populate(
  base: string,
  adminToken: string,
  document: ClientFeatures,
  environment = "development",
) {
  const segmentIds = new Map<number, number>();
  for (const segment of document.segments ?? []) {
    const created = (await call(base, adminToken, "POST", "/api/admin/segments", {
      name: `${segment.name}-${segment.id}`,
      constraints: segment.constraints,
    })) as { id: number };
    segmentIds.set(segment.id, created.id);
  }
  await inBatches(document.features, 8, async (feature) => {
    const project = "/api/admin/projects/default";
    await call(base, adminToken, "POST", `${project}/features`, {
      name: feature.name,
      type: "release",
      impressionData: feature.impressionData === true,
    });
    const env = `${project}/features/${feature.name}/environments/${environment}`;
    for (const strategy of feature.strategies ?? []) {
      await call(base, adminToken, "POST", `${env}/strategies`, {
        name: strategy.name,
        parameters: strategy.parameters ?? {},
        constraints: strategy.constraints ?? [],
        segments: (strategy.segments ?? []).map((id) => segmentIds.get(id)),
        // Unleash 7 refuses flag-level variants on new flags: they travel on the strategy.
        variants: strategy.variants?.length ? strategy.variants : (feature.variants ?? []),
      });
    }
    if (feature.enabled) await call(base, adminToken, "POST", `${env}/on`);
  });
}
