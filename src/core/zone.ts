/**
 * The mark of a session that runs in a zone (another machine, docs/zones.md), kept in its row's
 * metadata: `zone` on this machine's mirror row (the agent's runtime runs over there), `zoneHeld`
 * on the row over there (its permission requests are answered only through the zone link). Pure.
 */
export interface ZoneMark {
  /** The zone's name in this machine's config (`zones.<name>`). */
  name: string;
}

/** What the zone link from the person's machine told the other side about itself. */
export interface ZoneHeld {
  /** The person's machine (its host name), for messages. */
  from: string;
}

type HasMetadata = { metadata?: Record<string, unknown> | null };

/** The zone a mirror row's agent runs in, or null for an agent of this machine. */
export function zoneOf(s: HasMetadata): ZoneMark | null {
  const z = s.metadata?.zone as Partial<ZoneMark> | undefined;
  return z && typeof z.name === 'string' ? { name: z.name } : null;
}

/** The zone link a row of an agent started from another machine answers to, or null. */
export function zoneHeldOf(s: HasMetadata): ZoneHeld | null {
  const z = s.metadata?.zoneHeld as Partial<ZoneHeld> | undefined;
  return z && typeof z.from === 'string' ? { from: z.from } : null;
}

/** `@build` after a runtime in listings; '' for an agent of this machine. */
export function zoneSuffix(s: HasMetadata): string {
  const z = zoneOf(s);
  return z ? `@${z.name}` : '';
}

/**
 * On the row over there of an agent whose conversation `klaude checkout` took to the person's
 * machine: who took it and when. Over there it is not resumed again (one writer per conversation).
 */
export interface ZoneMoved {
  /** The person's machine (its host name). */
  to: string;
  at: number;
}

export function zoneMovedOf(s: HasMetadata): ZoneMoved | null {
  const m = s.metadata?.movedTo as Partial<ZoneMoved> | undefined;
  return m && typeof m.to === 'string' ? { to: m.to, at: typeof m.at === 'number' ? m.at : 0 } : null;
}

/** On this machine's row of an agent `klaude checkout` brought here from a zone: which zone, when. */
export interface FromZone {
  name: string;
  /** The zone's host name, as its serve end said it. */
  host: string;
  at: number;
}

export function fromZoneOf(s: HasMetadata): FromZone | null {
  const z = s.metadata?.fromZone as Partial<FromZone> | undefined;
  return z && typeof z.name === 'string'
    ? { name: z.name, host: typeof z.host === 'string' ? z.host : z.name, at: typeof z.at === 'number' ? z.at : 0 }
    : null;
}
