import { randomUUID } from "node:crypto";

/**
 * Every error either package answers with: a stable name, as the spec and the reference
 * spell it, and its status. The service renders `{ id, name, message, details? }`; the proxy
 * renders the reference proxy's bodies but takes its statuses from here.
 */
export const ERRORS = {
  ValidationError: 400,
  // A password the password policy refuses; the details name every rule it breaks.
  OwaspValidationError: 400,
  // A role still held by users, groups or project members cannot be deleted.
  RoleInUseError: 400,
  AuthenticationRequired: 401,
  // A login with a wrong username or password, never saying which.
  PasswordMismatch: 401,
  // A password reset link that is unknown, used or expired.
  InvalidTokenError: 401,
  // The spec pairs 403 with this name alone: the reference's InvalidOperationError and
  // OperationDeniedError (refusals of the operation rather than of the caller) answer as it.
  NoAccessError: 403,
  NotFoundError: 404,
  NotImplementedError: 405,
  NameExistsError: 409,
  ConflictError: 409,
  // Taking away the Owner role from the last user or group of a project that holds it.
  ProjectWithoutOwnerError: 409,
  ContentTooLarge: 413,
  // The spec's spelling, with a lower-case "e": clients match on this name, so it stays.
  ContentTypeerror: 415,
  RateLimitError: 429,
  InternalError: 500,
  // A service this one depends on, such as the OpenID provider of a sign-in, could not be used.
  BadGateway: 502,
  ServiceUnavailable: 503,
} as const;

export type ErrorName = keyof typeof ERRORS;

export interface ErrorDetail {
  message: string;
  path?: string;
}

export interface ErrorBody {
  id: string;
  name: ErrorName;
  message: string;
  details?: ErrorDetail[];
}

/** An error a client can act on: its name fixes its status. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    override readonly name: ErrorName,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.status = ERRORS[name];
  }

  toJSON(): ErrorBody {
    const body: ErrorBody = { id: randomUUID(), name: this.name, message: this.message };
    return this.details ? { ...body, details: this.details } : body;
  }
}

/** A way for a person to log in, as a login page lists them. */
export interface LoginOption {
  type: string;
  message: string;
  path: string;
}

/**
 * The admin API's 401 without credentials: besides the error, where to log in with a
 * password and the other ways in (single sign-on), as the reference's UI reads them.
 */
export class LoginRequired extends ApiError {
  constructor(
    message: string,
    readonly path: string,
    readonly options: LoginOption[],
  ) {
    super("AuthenticationRequired", message);
  }

  override toJSON(): ErrorBody & {
    path: string;
    type: "password";
    defaultHidden: false;
    options: LoginOption[];
  } {
    return {
      ...super.toJSON(),
      path: this.path,
      type: "password",
      defaultHidden: false,
      options: this.options,
    };
  }
}

export const validationError = (message: string, details?: ErrorDetail[]) =>
  new ApiError("ValidationError", message, details ?? [{ message }]);

/** One detail per offending field, so a client can point at each. */
export const invalidField = (path: string, message: string) =>
  new ApiError("ValidationError", message, [{ message, path }]);

export const notFound = (message: string) => new ApiError("NotFoundError", message);

export const nameExists = (message: string) => new ApiError("NameExistsError", message);

export const authenticationRequired = (message: string) => new ApiError("AuthenticationRequired", message);

export const noAccess = (message: string) => new ApiError("NoAccessError", message);

export const conflict = (message: string) => new ApiError("ConflictError", message);
