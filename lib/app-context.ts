/**
 * What bin/app.ts checks of the CDK context besides the configuration itself: that every key
 * meant for the app is one it reads (a misspelt `-c` key is otherwise silently ignored), the
 * stack's name, and that a synth that can deploy does not carry the placeholder service address.
 */
import { closest, didYouMean } from '../cli/flags';
import { CONFIG_KEYS, ConfigError, type PipelineConfig } from './config';

/** Context keys the app reads besides the configuration's. */
export const APP_CONTEXT_KEYS = ['stackName'] as const;

/** The stack's name when `stackName` is not given. */
export const DEFAULT_STACK_NAME = 'MeetingPipeline';

/** CloudFormation's rule for a stack name. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

/**
 * Keys shaped like the app's own (letters and digits, a letter first). CDK's feature flags
 * (`@aws-cdk/...`), the CLI's settings (`aws:cdk:...`), cached lookups (`key:account=...`)
 * and acknowledged notices (`acknowledged-issue-numbers`) all carry another character.
 */
const APP_KEY_SHAPE = /^[A-Za-z][A-Za-z0-9]*$/;

const KNOWN_KEYS: readonly string[] = [...CONFIG_KEYS, ...APP_CONTEXT_KEYS];

/** One problem per context key meant for the app that it does not read, with the nearest known key. */
export function unknownContextKeyProblems(context: Record<string, unknown>): string[] {
  const byLowerCase = new Map(KNOWN_KEYS.map((key) => [key.toLowerCase(), key]));
  return Object.keys(context)
    .filter((key) => APP_KEY_SHAPE.test(key) && !KNOWN_KEYS.includes(key))
    .map((key) => {
      // Case first: `upstreamBaseURL` is `upstreamBaseUrl` whatever the distance says.
      const near = byLowerCase.get(key.toLowerCase()) ?? closest(key, KNOWN_KEYS);
      return `${key}: not a setting of this app${didYouMean(near)} (docs/configuration.md lists them)`;
    });
}

/** The stack name from the context: CloudFormation's rule, or the default when not given. */
export function stackNameProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && STACK_NAME.test(value)) return undefined;
  return 'stackName: must start with a letter and hold only letters, digits and hyphens (at most 128)';
}

/** Host names reserved for examples (RFC 2606): no service answers there. */
function isExampleHost(hostname: string): boolean {
  return /(^|\.)example\.(com|net|org)$/.test(hostname) || /\.(example|test|invalid)$/.test(hostname);
}

/**
 * Whether this synth can become a deployment. The CDK CLI sets CDK_DEFAULT_ACCOUNT for the app
 * only when it found credentials for an account, which `cdk deploy` needs; an offline
 * `cdk synth` (tests, a first look at the template) runs without it.
 */
export function synthCanDeploy(env: NodeJS.ProcessEnv): boolean {
  return (env.CDK_DEFAULT_ACCOUNT ?? '') !== '';
}

/**
 * The placeholder address (cdk.json's, or any example host) is an error in a synth that can
 * deploy, and a warning in an offline one.
 */
export function placeholderUpstream(config: PipelineConfig): boolean {
  return isExampleHost(new URL(config.upstreamBaseUrl).hostname);
}

export const PLACEHOLDER_UPSTREAM_PROBLEM =
  'upstreamBaseUrl: is the example placeholder, and a deployment needs the service you use; deploy with -c upstreamBaseUrl=https://<your service>/api/v1/';

/** Every context problem at once, as the configuration's error (one line at synth). */
export function checkAppContext(context: Record<string, unknown>): { stackName: string } {
  const problems = unknownContextKeyProblems(context);
  const stackNameIssue = stackNameProblem(context.stackName);
  if (stackNameIssue !== undefined) problems.push(stackNameIssue);
  if (problems.length > 0) throw new ConfigError(problems, context);
  return { stackName: typeof context.stackName === 'string' ? context.stackName : DEFAULT_STACK_NAME };
}
