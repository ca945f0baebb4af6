/**
 * One user's push channel through its life: opened with a fresh secret, renewed
 * (Graph: the same subscription moved forward; Google: a new channel first, then
 * the old one stopped, so no change falls between them), recreated after the
 * provider removed it, closed when the user leaves the calendar, stopped once its
 * calendar is deleted (retired by the delete, which may not read credentials). Used by the
 * renewal run (in the scheduled sync), which also cures what a Graph lifecycle notification
 * marked due.
 */
import type { SecretSource } from '../../../secrets';
import type { CompanyCalendarSource } from '../../calendar-source';
import type { CalendarProvider } from '../provider-contract';
import type { ChannelApis } from './channel-api';
import { mintPushSecret } from './push-secret';
import type { PushChannelRecord, PushChannelStore, RetiredChannel } from './push-store';

export interface ChannelLifecycleDependencies {
  channels: PushChannelStore;
  apis: ChannelApis;
  providerFor(source: CompanyCalendarSource): Promise<CalendarProvider>;
  /** The stack's push key: the HMAC key of every channel secret. */
  pushKey: SecretSource;
  now(): number;
}

export async function openChannel(
  source: CompanyCalendarSource,
  user: string,
  deps: ChannelLifecycleDependencies,
): Promise<PushChannelRecord> {
  const providerName = source.company.provider;
  const provider = await deps.providerFor(source);
  const { id, secret } = mintPushSecret(await deps.pushKey.read(), providerName);
  const opened = await deps.apis[providerName].open(user, secret, await provider.accessToken(user));
  const record: PushChannelRecord = {
    calendarId: source.calendarId,
    user,
    provider: providerName,
    secretId: id,
    channelId: opened.channelId,
    ...(opened.resourceId !== undefined && { resourceId: opened.resourceId }),
    expiresAtMs: opened.expiresAtMs,
    createdAt: deps.now(),
  };
  await deps.channels.put(record);
  return record;
}

export async function closeChannel(
  source: CompanyCalendarSource,
  record: PushChannelRecord,
  deps: ChannelLifecycleDependencies,
  options: { keepListing?: boolean } = {},
): Promise<void> {
  const provider = await deps.providerFor(source);
  await deps.apis[record.provider].close(record, await provider.accessToken(record.user));
  await deps.channels.remove(record, options);
}

/** Extends the channel where the provider allows it, else replaces it. */
export async function renewChannel(
  source: CompanyCalendarSource,
  record: PushChannelRecord,
  deps: ChannelLifecycleDependencies,
): Promise<'renewed' | 'replaced'> {
  const provider = await deps.providerFor(source);
  const expiresAtMs = await deps.apis[record.provider].renew(record, await provider.accessToken(record.user));
  if (expiresAtMs !== undefined) {
    await deps.channels.put({ ...record, expiresAtMs });
    return 'renewed';
  }
  await recreateChannel(source, record, deps);
  return 'replaced';
}

/** A new channel for the user, then the old one stopped (already gone at the provider is fine). */
export async function recreateChannel(
  source: CompanyCalendarSource,
  record: PushChannelRecord,
  deps: ChannelLifecycleDependencies,
): Promise<PushChannelRecord> {
  const replacement = await openChannel(source, record.user, deps);
  await closeChannel(source, record, deps, { keepListing: true });
  return replacement;
}

/** Stops a deleted calendar's channel at its provider (already gone there is fine), then forgets it. */
export async function stopRetiredChannel(retired: RetiredChannel, deps: ChannelLifecycleDependencies): Promise<void> {
  const provider = await deps.providerFor(retired.source);
  await deps.apis[retired.record.provider].close(retired.record, await provider.accessToken(retired.record.user));
  await deps.channels.forgetRetired(retired.record);
}
