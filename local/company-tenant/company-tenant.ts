/**
 * `npm run dev -- --calendar-simulators`: both calendar provider simulators on
 * 127.0.0.1 with a sample tenant each (google-seed.ts, microsoft-seed.ts) holding the
 * sample plan's meetings (sample-plan.ts), and what local mode needs to sync them:
 * the provider endpoints pointing at the simulators, a company source config per
 * provider, and the credentials to put in the local secrets by secret name.
 *
 * The simulators keep their own clocks (tests move them); here they follow the
 * wall clock, as the pipeline's token assertions and cursors are dated by it.
 */
import type { ProviderEndpoints } from '../../lambdas/core/calendar/company/provider-contract';
import { GoogleCalendarSimulator } from '../simulator/google-calendar/server';
import { MicrosoftGraphSimulator } from '../simulator/microsoft-graph/simulator';
import { type GoogleSample, seedGoogleTenant } from './google-seed';
import { type MicrosoftSample, seedMicrosoftTenant } from './microsoft-seed';
import { type SamplePlan, samplePlan } from './sample-plan';

/** How often the simulators' clocks are brought up to the wall clock. */
const CLOCK_FOLLOW_MS = 500;

export interface CompanyTenant {
  plan: SamplePlan;
  google: GoogleSample & { simulator: GoogleCalendarSimulator };
  microsoft: MicrosoftSample & { simulator: MicrosoftGraphSimulator };
  /** Every provider endpoint, pointing at the simulators. */
  endpoints: ProviderEndpoints;
  /** Secret name -> value, for local mode's credentials reader. */
  secrets: ReadonlyMap<string, string>;
  /** Brings both simulators' clocks up to `now()` (done every half second; a test calls it instead of waiting). */
  followClock(): void;
  stop(): Promise<void>;
}

export async function startCompanyTenant(options: { now?: () => number } = {}): Promise<CompanyTenant> {
  const now = options.now ?? Date.now;
  const started = now();
  const plan = samplePlan(started);
  const google = new GoogleCalendarSimulator(started);
  const microsoft = new MicrosoftGraphSimulator({ now: started });
  await google.start();
  let graphBase: string;
  try {
    graphBase = await microsoft.start();
  } catch (error) {
    await google.stop();
    throw error;
  }
  const googleSample = seedGoogleTenant(google, plan);
  const microsoftSample = seedMicrosoftTenant(microsoft, plan);

  let simulated = started;
  const followClock = () => {
    const wall = now();
    if (wall <= simulated) return;
    google.control.advanceClock(wall - simulated);
    microsoft.advanceClock(wall - simulated);
    simulated = wall;
  };
  const follow = setInterval(followClock, CLOCK_FOLLOW_MS);
  follow.unref();

  const googleRoot = new URL(google.apiBase).origin;
  return {
    plan,
    google: { ...googleSample, simulator: google },
    microsoft: { ...microsoftSample, simulator: microsoft },
    endpoints: {
      googleCalendarApi: google.apiBase,
      googleDirectoryApi: `${googleRoot}/admin/directory/v1`,
      googleTokenUrl: google.tokenUrl,
      microsoftGraph: `${graphBase}/v1.0`,
      microsoftLogin: graphBase,
    },
    secrets: new Map([
      [googleSample.source.credentialsSecret, googleSample.credentials],
      [microsoftSample.source.credentialsSecret, microsoftSample.credentials],
    ]),
    followClock,
    async stop() {
      clearInterval(follow);
      await Promise.all([google.stop(), microsoft.stop()]);
    },
  };
}
