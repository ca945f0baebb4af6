/** One way to say what a zod check found wrong, for every schema the code checks input against. */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** `field.path: message` per issue; an issue about the whole value is named `rootLabel`. */
export function describeIssues(error: { readonly issues: readonly ValidationIssue[] }, rootLabel = '(root)'): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : rootLabel;
    return `${path}: ${issue.message}`;
  });
}
