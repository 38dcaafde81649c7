/** An error the control plane answers in Tencent Cloud's envelope: `Response.Error.{Code,Message}`. */
export class AgsApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgsApiError';
  }
}
