/** What an SDK posts to /client/register; passed upstream as it came. */
export interface ClientRegistration {
  appName: string;
  instanceId?: string;
  [field: string]: unknown;
}

// Registrations are tiny but client-chosen: the bound keeps memory flat under abuse.
const MAX_PENDING = 1000;

const keyOf = (registration: ClientRegistration) =>
  `${registration.appName}\u0000${registration.instanceId ?? ""}`;

/** Client registrations waiting to be forwarded upstream; a repeated one replaces the earlier copy. */
export class ClientRegistrations {
  private pending = new Map<string, ClientRegistration>();

  add(registration: ClientRegistration): void {
    const key = keyOf(registration);
    if (!this.pending.has(key) && this.pending.size >= MAX_PENDING) return;
    this.pending.set(key, registration);
  }

  take(): ClientRegistration[] {
    const registrations = [...this.pending.values()];
    this.pending = new Map();
    return registrations;
  }

  /** Puts back registrations that could not be forwarded, unless a newer copy arrived meanwhile. */
  restore(registrations: ClientRegistration[]): void {
    for (const registration of registrations) {
      if (!this.pending.has(keyOf(registration))) this.add(registration);
    }
  }
}
