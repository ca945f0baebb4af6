/**
 * Least privilege on the meetings table: each function's item actions are held by
 * `dynamodb:LeadingKeys` to the kinds of partition its own code builds keys for, read from the
 * code (table-partitions.ts), so a grant can neither miss a partition the code uses (which would
 * fail in production only) nor keep one it no longer needs.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { userScopeId } from '../../lambdas/core/calendar/company/user-scope';
import { keys, PARTITIONS, type PartitionKind } from '../../lambdas/core/store/table-layout';
import { SERVICES } from '../../lambdas/core/telemetry';
import { PipelineFunction } from '../../lib/function';
import { actionsOf, functionStatements, type Statement } from './iam';
import { synthTemplate } from './synth';
import {
  COMMAND,
  type CommandReferences,
  kindsOfLayoutReference,
  layoutReferences,
  NOT_TABLE_PARTITIONS,
  stringLike,
  UNKNOWN_KEYS,
} from './table-partitions';

let template: Template;
let functions: PipelineFunction[];
/** Per service: each kind of partition its code reaches, with the file that builds such a key. */
let reached: Map<string, Map<PartitionKind, string>>;
/** The DynamoDB actions each function's code sends, with a file that sends each. */
const sent = new Map<string, Map<string, string>>();
/** Per function entry, the layout references each action's commands are built with. */
const commandReferences = new Map<string, CommandReferences>();

beforeAll(() => {
  const synth = synthTemplate();
  template = synth.template;
  functions = synth.stack.node.findAll().filter((c): c is PipelineFunction => c instanceof PipelineFunction);
  const references = layoutReferences(
    functions.map((fn) => fn.entry),
    commandReferences,
  );
  reached = new Map(
    functions.map((fn) => {
      const kinds = new Map<PartitionKind, string>();
      for (const [reference, file] of references.get(fn.entry) ?? [])
        if (reference.startsWith(COMMAND)) {
          const actions = sent.get(fn.serviceName) ?? new Map<string, string>();
          actions.set(reference.slice(COMMAND.length), file);
          sent.set(fn.serviceName, actions);
        } else for (const kind of kindsOfLayoutReference(reference)) kinds.set(kind, `${file} (${reference})`);
      return [fn.serviceName, kinds];
    }),
  );
}, 300_000);

type Conditioned = Statement & { Condition?: Record<string, Record<string, unknown>> };
const KIND_OF_PATTERN = new Map(Object.entries(PARTITIONS).map(([kind, pattern]) => [pattern, kind as PartitionKind]));
const isTable = (resource: unknown) =>
  JSON.stringify(resource).match(/^\{"Fn::GetAtt":\["MeetingsTable[^"]*","Arn"\]\}$/);
const tableStatements = (service: string): Conditioned[] =>
  functionStatements(template, service).filter((s) => actionsOf([s]).some((a) => a.startsWith('dynamodb:')));
const leadingKeys = (s: Conditioned): string[] | undefined =>
  s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined;

/** Whether the function's policy lets `action` reach an item under partition key `pk` (IAM's own reading). */
function allows(service: string, action: string, pk: string): boolean {
  return tableStatements(service).some(
    (s) =>
      s.Effect === 'Allow' &&
      actionsOf([s]).includes(action) &&
      isTable(s.Resource) &&
      (leadingKeys(s) ?? ['*']).some((pattern) => stringLike(pattern, pk)),
  );
}

describe('table grants', () => {
  it("name exactly the kinds of partition each function's code builds keys for", () => {
    expect(functions.length).toBe(Object.keys(SERVICES).length);
    for (const fn of functions) {
      const granted = new Set(
        tableStatements(fn.serviceName)
          .filter((s) => isTable(s.Resource))
          .flatMap((s) => leadingKeys(s) ?? [])
          .map((pattern) => KIND_OF_PATTERN.get(pattern) ?? pattern),
      );
      const used = reached.get(fn.serviceName) ?? new Map();
      const missing = [...used].filter(([kind]) => !granted.has(kind)).map(([kind, where]) => `${kind} (${where})`);
      const unused = [...granted].filter((kind) => !used.has(kind as PartitionKind));
      expect({ service: fn.serviceName, missing, unused }).toEqual({
        service: fn.serviceName,
        missing: [],
        unused: [],
      });
    }
  });

  /**
   * Actions the analysis finds because it reads a class whole, which the function never sends: each
   * named with the method that sends it and why this function does not call it.
   */
  const NEVER_SENT: Record<string, Record<string, string>> = {};

  it('grant each function every DynamoDB action its code sends (local emulators check no IAM)', () => {
    for (const fn of functions) {
      const granted = new Set(actionsOf(tableStatements(fn.serviceName)));
      const missing = [...(sent.get(fn.serviceName) ?? [])]
        .filter(([action]) => !granted.has(action) && NEVER_SENT[fn.serviceName]?.[action] === undefined)
        .map(([action, file]) => `${action} (${file})`);
      expect({ service: fn.serviceName, missing }).toEqual({ service: fn.serviceName, missing: [] });
    }
    // The analysis sees the commands at all: the ingress puts its ledger record.
    expect(sent.get(SERVICES.ingress)?.has('dynamodb:PutItem')).toBe(true);
  });

  it('hold every item action on the table to LeadingKeys, and let no function Scan', () => {
    for (const fn of functions) {
      for (const statement of tableStatements(fn.serviceName)) {
        expect(actionsOf([statement]), fn.serviceName).not.toContain('dynamodb:Scan');
        if (isTable(statement.Resource))
          expect(leadingKeys(statement), `${fn.serviceName}: ${actionsOf([statement])}`).toEqual(
            expect.arrayContaining([expect.any(String)]),
          );
        // Else only the reconciler's Query on the state index, which holds meeting items only.
        else
          expect({ service: fn.serviceName, actions: actionsOf([statement]) }).toEqual({
            service: SERVICES.reconciler,
            actions: ['dynamodb:Query'],
          });
      }
    }
  });

  /**
   * Functions an outsider reaches without credentials (the notification routes answer anyone holding
   * a URL): each item action is granted on the kinds the code sends that very action on, no other.
   */
  const HELD_PER_ACTION = [SERVICES.calendarPush];

  it('hold each action of the unauthenticated functions to the kinds its code sends it on', () => {
    for (const service of HELD_PER_ACTION) {
      const entry = functions.find((fn) => fn.serviceName === service)?.entry ?? '';
      const byAction = commandReferences.get(entry);
      const broader: string[] = [];
      for (const statement of tableStatements(service).filter((s) => isTable(s.Resource)))
        for (const action of actionsOf([statement]))
          for (const pattern of leadingKeys(statement) ?? ['*']) {
            const kind = KIND_OF_PATTERN.get(pattern) ?? pattern;
            const built = [...(byAction?.get(action) ?? [])];
            const sends = built.some(
              (reference) =>
                reference === UNKNOWN_KEYS || kindsOfLayoutReference(reference).includes(kind as PartitionKind),
            );
            if (!sends) broader.push(`${action} on ${kind}`);
          }
      expect({ service, broader }).toEqual({ service, broader: [] });
    }
  });

  it("keep the push function from every calendar item, users' kept copies included: channel routes only", () => {
    const calendarItems = [
      keys.calendarItems('cal-1'),
      keys.calendarFeed(userScopeId('cal-1', 'ada@acme.example')).pk,
      keys.calendar('cal-1').pk,
    ];
    for (const pk of calendarItems)
      for (const action of ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
        expect({ pk, action, allowed: allows(SERVICES.calendarPush, action, pk) }).toMatchObject({ allowed: false });
    expect(allows(SERVICES.calendarPush, 'dynamodb:UpdateItem', keys.pushRoute('secret-id').pk)).toBe(true);
  });

  it('keep the read API from calendar feeds, calendar entries, schedules and meeting claims', () => {
    const meeting = keys.meeting('bot-1').pk;
    expect(allows(SERVICES.readApi, 'dynamodb:Query', meeting)).toBe(true);
    expect(allows(SERVICES.readApi, 'dynamodb:Query', keys.meetingsOnDay('2026-11-24', 3))).toBe(true);
    for (const pk of [
      keys.calendarFeed('cal-1').pk,
      keys.calendar('cal-1').pk,
      keys.schedule('s-1').pk,
      keys.meetingClaim('abc', '2026-11-24T10:00:00Z').pk,
      keys.retentionMark().pk,
    ]) {
      expect({ pk, query: allows(SERVICES.readApi, 'dynamodb:Query', pk) }).toEqual({ pk, query: false });
      expect({ pk, get: allows(SERVICES.readApi, 'dynamodb:GetItem', pk) }).toEqual({ pk, get: false });
    }
  });

  it('let processing, archive, reconciler and erase write only their own partitions', () => {
    const foreign: Record<string, string[]> = {
      [SERVICES.processEvents]: [keys.schedule('s-1').pk, keys.calendarFeed('cal-1').pk, keys.retentionMark().pk],
      [SERVICES.archive]: [keys.event('bot-1', 'k').pk, keys.schedule('s-1').pk, keys.meetingsOnDay('2026-11-24', 0)],
      [SERVICES.reconciler]: [
        keys.schedule('s-1').pk,
        keys.calendar('cal-1').pk,
        keys.objectEvent('calendar:c', 'k').pk,
      ],
      [SERVICES.erase]: [
        keys.calendarFeed('cal-1').pk,
        keys.calendar('cal-1').pk,
        keys.objectEvent('calendar:c', 'k').pk,
      ],
    };
    for (const [service, partitionKeys] of Object.entries(foreign)) {
      expect(allows(service, 'dynamodb:PutItem', keys.meeting('bot-1').pk), service).toBe(true);
      for (const pk of partitionKeys)
        for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem'])
          expect({ service, action, pk, allowed: allows(service, action, pk) }).toMatchObject({ allowed: false });
    }
  });
});

describe('the table layout', () => {
  it('puts every partition key a builder makes under exactly one kind of PARTITIONS', () => {
    const builders = Object.keys(keys).filter((name) => !NOT_TABLE_PARTITIONS.has(name));
    expect(builders.length).toBeGreaterThan(15);
    for (const name of builders) {
      const kinds = kindsOfLayoutReference(name);
      expect({ name, kinds: new Set(kinds).size }).toEqual({ name, kinds: 1 });
    }
  });
});
