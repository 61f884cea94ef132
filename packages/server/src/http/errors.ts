import { randomUUID } from "node:crypto";

export interface ErrorDetail {
  message: string;
  path?: string;
}

/** An error a client can act on: it knows its status and renders the spec's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    override readonly name: string,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }

  toJSON(): { id: string; name: string; message: string; details?: ErrorDetail[] } {
    const body = { id: randomUUID(), name: this.name, message: this.message };
    return this.details ? { ...body, details: this.details } : body;
  }
}

export const validationError = (message: string, details?: ErrorDetail[]) =>
  new ApiError(400, "ValidationError", message, details ?? [{ message }]);

/** One detail per offending field, so a client can point at each. */
export const invalidField = (path: string, message: string) =>
  new ApiError(400, "ValidationError", message, [{ message, path }]);

export const notFound = (message: string) => new ApiError(404, "NotFoundError", message);

export const nameExists = (message: string) => new ApiError(409, "NameExistsError", message);

export const authenticationRequired = (message: string) =>
  new ApiError(401, "AuthenticationRequired", message);

export const noAccess = (message: string) => new ApiError(403, "NoAccessError", message);

export const conflict = (message: string) => new ApiError(409, "ConflictError", message);
