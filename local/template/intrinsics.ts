/**
 * CloudFormation's intrinsic functions, evaluated as the service would at deploy time, over the
 * physical ids local mode gives the template's resources. Whatever the template names that
 * has no local id is an error: a wrong name must fail here as it would fail in AWS.
 */

/** The physical ids of a template's resources, as `Ref` and `Fn::GetAtt` read them. */
export interface PhysicalIds {
  ref(logicalId: string): string;
  getAtt(logicalId: string, attribute: string): string;
  /** AWS::Region, AWS::AccountId, AWS::URLSuffix, AWS::Partition, AWS::StackName. */
  pseudo: Record<string, string>;
}

type Value = string | Value[];

function evaluate(value: unknown, ids: PhysicalIds, where: string): Value {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map((item, index) => evaluate(item, ids, `${where}[${index}]`));
  if (typeof value !== 'object' || value === null) throw new Error(`${where}: cannot evaluate ${String(value)}`);
  const entries = Object.entries(value);
  const [name, argument] = entries[0] ?? [];
  if (entries.length !== 1 || name === undefined)
    throw new Error(`${where}: not an intrinsic: ${JSON.stringify(value)}`);
  switch (name) {
    case 'Ref': {
      const id = String(argument);
      if (id.startsWith('AWS::')) {
        const pseudo = ids.pseudo[id];
        if (pseudo === undefined) throw new Error(`${where}: no value for pseudo parameter ${id}`);
        return pseudo;
      }
      return ids.ref(id);
    }
    case 'Fn::GetAtt': {
      const [id, attribute] = typeof argument === 'string' ? argument.split('.', 2) : (argument as unknown[]);
      return ids.getAtt(String(id), String(attribute));
    }
    case 'Fn::Join': {
      const [separator, parts] = argument as [string, unknown];
      return list(evaluate(parts, ids, `${where}.Fn::Join`), where).join(separator);
    }
    case 'Fn::Select': {
      const [index, items] = argument as [unknown, unknown];
      const chosen = list(evaluate(items, ids, `${where}.Fn::Select`), where)[
        Number(text(evaluate(index, ids, where)))
      ];
      if (chosen === undefined) throw new Error(`${where}: Fn::Select index ${String(index)} is out of range`);
      return chosen;
    }
    case 'Fn::Split': {
      const [separator, source] = argument as [string, unknown];
      return text(evaluate(source, ids, `${where}.Fn::Split`)).split(separator);
    }
    case 'Fn::Sub': {
      const [pattern, variables] = typeof argument === 'string' ? [argument, {}] : (argument as [string, object]);
      const given = Object.fromEntries(
        Object.entries(variables).map(([key, v]) => [key, text(evaluate(v, ids, `${where}.${key}`))]),
      );
      return pattern.replace(/\$\{([^}]+)\}/g, (_, reference: string) => {
        if (given[reference] !== undefined) return given[reference];
        const [id, attribute] = reference.split('.', 2);
        if (id === undefined) throw new Error(`${where}: empty reference in Fn::Sub`);
        return attribute === undefined ? text(evaluate({ Ref: id }, ids, where)) : ids.getAtt(id, attribute);
      });
    }
    default:
      throw new Error(`${where}: ${name} is not evaluated locally`);
  }
}

function list(value: Value, where: string): string[] {
  if (!Array.isArray(value)) throw new Error(`${where}: expected a list, got ${JSON.stringify(value)}`);
  return value.map((item) => text(item));
}

function text(value: Value): string {
  if (Array.isArray(value)) throw new Error(`expected a string, got the list ${JSON.stringify(value)}`);
  return value;
}

/** One template value as the string CloudFormation would deploy. */
export function resolveValue(value: unknown, ids: PhysicalIds, where = 'value'): string {
  return text(evaluate(value, ids, where));
}

const isIntrinsic = (value: object): boolean => {
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || (keys[0]?.startsWith('Fn::') ?? false));
};

/** A resource's properties (or any part of them) with every intrinsic inside evaluated. */
export function resolveTree(value: unknown, ids: PhysicalIds, where = 'value'): unknown {
  if (Array.isArray(value)) return value.map((item, index) => resolveTree(item, ids, `${where}[${index}]`));
  if (typeof value !== 'object' || value === null) return value;
  if (isIntrinsic(value)) return resolveValue(value, ids, where);
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, resolveTree(v, ids, `${where}.${key}`)]));
}
