import type { ClientRegistration } from "@signalbox/protocol";

/** A registration as kept: what names its sender, and the rest as it came. */
type Registration = Pick<ClientRegistration, "appName" | "instanceId"> & { [field: string]: unknown };

// Registrations are tiny but client-chosen: the bound keeps memory flat under abuse.
const MAX_PENDING = 1000;

const keyOf = (registration: Registration) => `${registration.appName}\u0000${registration.instanceId ?? ""}`;

/**
 * Client registrations waiting to be forwarded upstream as they came; a repeated one
 * replaces the earlier copy.
 */
export class ClientRegistrations {
  private pending = new Map<string, Registration>();

  add(registration: Registration): void {
    const key = keyOf(registration);
    if (!this.pending.has(key) && this.pending.size >= MAX_PENDING) return;
    this.pending.set(key, registration);
  }

  take(): Registration[] {
    const registrations = [...this.pending.values()];
    this.pending = new Map();
    return registrations;
  }

  /** Puts back registrations that could not be forwarded, unless a newer copy arrived meanwhile. */
  restore(registrations: Registration[]): void {
    for (const registration of registrations) {
      if (!this.pending.has(keyOf(registration))) this.add(registration);
    }
  }
}
