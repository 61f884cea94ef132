import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const fetchAddons = () => unwrap(api.GET("/api/admin/addons"));

export type AddonList = Awaited<ReturnType<typeof fetchAddons>>;
export type Addon = AddonList["addons"][number];
export type Provider = AddonList["providers"][number];
export type ParameterDefinition = Provider["parameters"][number];

/** The addons and the providers they can use, in one answer. */
export function useAddons() {
  return useQuery({ queryKey: queryKeys.addons.list(), queryFn: fetchAddons });
}

const fetchDeliveries = (id: number) =>
  unwrap(api.GET("/api/admin/addons/{id}/events", { params: { path: { id }, query: { limit: 50 } } }));

export type Delivery = Awaited<ReturnType<typeof fetchDeliveries>>["integrationEvents"][number];

/** What an addon delivered, newest first, asked again every 5 seconds while it is shown. */
export function useDeliveries(id: number) {
  return useQuery({
    queryKey: queryKeys.addons.deliveries(id),
    queryFn: () => fetchDeliveries(id),
    refetchInterval: 5_000,
  });
}
