/**
 * Which kinds of table partition (PARTITIONS in lambdas/core/store/table-layout.ts) a function's code
 * can reach, read from the code itself: from the handler, every top-level declaration it references,
 * transitively (resolved by the TypeScript checker, so an import of one constant does not bring its
 * module's other functions), and in them each key builder (`keys.x`) and partition key constant
 * (`*_PK`, `*_PK_PREFIX`) of the table layout. Each builder is then called with sample values and its
 * partition key matched against PARTITIONS, so a new builder is classified without a list to update.
 */
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import * as layout from '../../lambdas/core/store/table-layout';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LAYOUT_FILE = resolve(ROOT, 'lambdas/core/store/table-layout.ts');

/**
 * Builders whose value is no partition key of the table: state-index partitions (gsi2pk, which
 * `dynamodb:LeadingKeys` does not govern on the table) and sort keys.
 */
export const NOT_TABLE_PARTITIONS: ReadonlySet<string> = new Set([
  'meetingsInState',
  'unshardedState',
  'stateIndexPartitions',
  'meetingAt',
]);

/** IAM StringLike: `*` any run of characters, `?` one. */
export function stringLike(pattern: string, value: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(value);
}

/** The kinds whose pattern matches a partition key. */
export function kindsOf(partitionKey: string): layout.PartitionKind[] {
  return (Object.entries(layout.PARTITIONS) as Array<[layout.PartitionKind, string]>)
    .filter(([, pattern]) => stringLike(pattern, partitionKey))
    .map(([kind]) => kind);
}

/** The partition keys a builder makes, called with a sample value for each parameter. */
function partitionKeysOfBuilder(name: string): string[] {
  const builder = (layout.keys as unknown as Record<string, (...args: string[]) => unknown>)[name];
  if (typeof builder !== 'function') throw new Error(`keys.${name} is not a key builder`);
  const made = builder(...Array.from({ length: builder.length }, () => '1'));
  const values = Array.isArray(made) ? made : [made];
  return values.map((value) =>
    typeof value === 'string' ? value : String((value as Record<string, unknown>)[layout.TABLE_KEYS.partitionKey]),
  );
}

/** What one reference into the table layout (a builder or a partition key constant) reaches. */
export function kindsOfLayoutReference(reference: string): layout.PartitionKind[] {
  const constant = (layout as Record<string, unknown>)[reference];
  const keys =
    typeof constant === 'string'
      ? [reference.endsWith('_PREFIX') ? `${constant}1` : constant]
      : NOT_TABLE_PARTITIONS.has(reference)
        ? []
        : partitionKeysOfBuilder(reference);
  return keys.flatMap((key) => {
    const kinds = kindsOf(key);
    if (kinds.length === 0)
      throw new Error(
        `${reference} makes the partition key ${key}, which no kind of PARTITIONS (lambdas/core/store/table-layout.ts) matches: add one`,
      );
    return kinds;
  });
}

/** Marks a reference that is a DynamoDB command the code sends, not a layout reference: `command:PutItem`. */
export const COMMAND = 'command:';

/** The IAM action of the DynamoDB command class a declaration is (lib-dynamodb's or the client's), if it is one. */
function dynamoCommand(declaration: ts.Declaration, name: string): string | undefined {
  if (!/\/@aws-sdk\/(lib|client)-dynamodb\//.test(declaration.getSourceFile().fileName)) return undefined;
  const match = /^(\w+)Command$/.exec(name);
  if (match === null) return undefined;
  const documentActions: Record<string, string> = {
    Put: 'PutItem',
    Get: 'GetItem',
    Update: 'UpdateItem',
    Delete: 'DeleteItem',
    BatchGet: 'BatchGetItem',
    BatchWrite: 'BatchWriteItem',
    TransactGet: 'TransactGetItems',
    TransactWrite: 'TransactWriteItems',
  };
  const base = match[1] as string;
  return `dynamodb:${documentActions[base] ?? base}`;
}

/**
 * Per DynamoDB action a function's code sends, the layout references written inside the command's own
 * arguments (`new UpdateCommand({ Key: keys.pushRoute(id), … })`), or UNKNOWN_KEYS when one of its
 * commands is given a key built elsewhere (a variable): then any kind the function reaches may be meant.
 */
export type CommandReferences = Map<string, Set<string>>;
export const UNKNOWN_KEYS = '?';

/**
 * The table layout's references each handler's code reaches, with a file that makes each, and the
 * DynamoDB commands it sends (keys starting with COMMAND); `commandReferences` gets, per handler, what
 * each command is built with.
 */
export function layoutReferences(
  entries: readonly string[],
  commandReferences: Map<string, CommandReferences> = new Map(),
): Map<string, Map<string, string>> {
  const config = ts.getParsedCommandLineOfConfigFile(
    resolve(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const roots = entries.map((entry) => resolve(ROOT, entry));
  const program = ts.createProgram(roots, config.options);
  const checker = program.getTypeChecker();

  /** The top-level statement a declaration belongs to, if it is in this repository's code. */
  const topLevel = (node: ts.Node): ts.Node | undefined => {
    const file = node.getSourceFile();
    if (file.isDeclarationFile || file.fileName.includes('/node_modules/')) return undefined;
    let current = node;
    while (current.parent !== undefined && !ts.isSourceFile(current.parent)) current = current.parent;
    return ts.isSourceFile(current) ? undefined : current;
  };

  const resolved = (node: ts.Node): ts.Symbol | undefined => {
    const symbol = checker.getSymbolAtLocation(node);
    return symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  };
  /** The IAM action of the command class an expression names, if it names one. */
  const commandOf = (expression: ts.Expression): string | undefined => {
    const symbol = resolved(expression);
    for (const declaration of symbol?.declarations ?? []) {
      const command = dynamoCommand(declaration, symbol?.getName() ?? '');
      if (command !== undefined) return command;
    }
    return undefined;
  };
  /** The key builders (`keys.x`) and partition key constants of the layout written inside these nodes. */
  const layoutNames = (nodes: readonly ts.Node[]): string[] => {
    const names: string[] = [];
    const look = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        const symbol = resolved(node);
        const inLayout = symbol?.declarations?.some((d) => d.getSourceFile().fileName === LAYOUT_FILE) ?? false;
        const name = symbol?.getName() ?? '';
        if (
          inLayout &&
          name === 'keys' &&
          ts.isPropertyAccessExpression(node.parent) &&
          node.parent.expression === node
        )
          names.push(node.parent.name.text);
        else if (inLayout && /_PK(_PREFIX)?$/.test(name)) names.push(name);
      }
      ts.forEachChild(node, look);
    };
    for (const node of nodes) look(node);
    return names;
  };

  const result = new Map<string, Map<string, string>>();
  for (const [index, root] of roots.entries()) {
    const file = program.getSourceFile(root);
    if (file === undefined) throw new Error(`${root} is not in the program`);
    const found = new Map<string, string>();
    const byCommand: CommandReferences = new Map();
    commandReferences.set(entries[index] as string, byCommand);
    const seen = new Set<ts.Node>();
    const queue: ts.Node[] = [...file.statements];
    while (queue.length > 0) {
      const unit = queue.pop() as ts.Node;
      if (seen.has(unit)) continue;
      seen.add(unit);
      const where = relative(ROOT, unit.getSourceFile().fileName);
      const visit = (node: ts.Node): void => {
        if (ts.isNewExpression(node)) {
          const action = commandOf(node.expression);
          if (action !== undefined) {
            const named = byCommand.get(action) ?? new Set<string>();
            byCommand.set(action, named);
            const inside = layoutNames(node.arguments ?? []);
            if (inside.length === 0) named.add(UNKNOWN_KEYS);
            for (const name of inside) named.add(name);
          }
        }
        if (ts.isIdentifier(node)) {
          let symbol = checker.getSymbolAtLocation(node);
          if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
          for (const declaration of symbol?.declarations ?? []) {
            const command = dynamoCommand(declaration, symbol?.getName() ?? '');
            if (command !== undefined) {
              found.set(`${COMMAND}${command}`, where);
              continue;
            }
            if (declaration.getSourceFile().fileName === LAYOUT_FILE) {
              const name = symbol?.getName() ?? '';
              if (name === 'keys' && ts.isPropertyAccessExpression(node.parent) && node.parent.expression === node)
                found.set(node.parent.name.text, where);
              else if (/_PK(_PREFIX)?$/.test(name)) found.set(name, where);
              continue;
            }
            const next = topLevel(declaration);
            if (next !== undefined && !seen.has(next)) queue.push(next);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(unit);
    }
    result.set(entries[index] as string, found);
  }
  return result;
}
