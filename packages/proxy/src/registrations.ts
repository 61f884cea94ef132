import type { ClientRegistration } from "@signalbox/protocol";
import type { ReportBudget } from "./budget.js";

/** A registration as kept: what names its sender, and the rest as it came. */
type Registration = Pick<ClientRegistration, "appName" | "instanceId"> & { [field: string]: unknown };

// Each pending registration is one call upstream at the next send: the bound keeps that fan-out flat.
const MAX_PENDING = 1000;

const keyOf = (registration: Registration) => `${registration.appName}\u0000${registration.instanceId ?? ""}`;

/**
 * Client registrations waiting to be forwarded upstream as they came; a repeated one
 * replaces the earlier copy. Each takes room, its size as JSON, from the budget for pending reports.
 */
export class ClientRegistrations {
  private pending = new Map<string, { registration: Registration; bytes: number }>();

  constructor(private readonly budget: ReportBudget) {}

  add(registration: Registration): void {
    const key = keyOf(registration);
    const previous = this.pending.get(key);
    if (previous) this.budget.release(previous.bytes);
    else if (this.pending.size >= MAX_PENDING) return;
    const bytes = JSON.stringify(registration).length;
    if (this.budget.take(bytes, "registration")) this.pending.set(key, { registration, bytes });
    else this.pending.delete(key);
  }

  take(): Registration[] {
    const pending = [...this.pending.values()];
    this.pending = new Map();
    for (const { bytes } of pending) this.budget.release(bytes);
    return pending.map(({ registration }) => registration);
  }

  /** Puts back registrations that could not be forwarded, unless a newer copy arrived meanwhile. */
  restore(registrations: Registration[]): void {
    for (const registration of registrations) {
      if (!this.pending.has(keyOf(registration))) this.add(registration);
    }
  }
}
