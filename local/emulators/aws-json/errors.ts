/**
 * An AWS service's refusal over the JSON protocols (1.0 and 1.1): an HTTP status (400 unless the
 * service says otherwise) and a body whose `__type` names the exception. Services differ in how
 * they spell the message member (`Message` or `message`) and in extra members, so both are given.
 * Operations throw it; the server writes it, so no operation half-answers.
 */
export interface AwsJsonErrorOptions {
  status?: number;
  /** The member the service puts its message in (default `Message`). */
  messageKey?: 'Message' | 'message';
  /** Members the service adds beside the message. */
  fields?: Record<string, string>;
}

export class AwsJsonError extends Error {
  readonly status: number;
  private readonly messageKey: 'Message' | 'message';
  private readonly fields: Record<string, string>;

  constructor(
    readonly type: string,
    message: string,
    options: AwsJsonErrorOptions = {},
  ) {
    super(message);
    this.name = 'AwsJsonError';
    this.status = options.status ?? 400;
    this.messageKey = options.messageKey ?? 'Message';
    this.fields = options.fields ?? {};
  }

  body(): Record<string, string> {
    return {
      __type: this.type,
      // Some refusals carry no message at all (an unknown operation, a body that is not JSON).
      ...(this.message === '' ? {} : { [this.messageKey]: this.message }),
      ...this.fields,
    };
  }
}
