/** A decoded HTTP answer: the body parsed as JSON when it is JSON, and the raw text beside it. */
export interface HttpResult<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}
