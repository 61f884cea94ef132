import type { UseFormReturnType } from "@mantine/form";
import { useMutation } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { fieldErrors } from "./form-error";

/**
 * A form's save on submit, once its own rules pass. The service's refusal stays in the form
 * (`meta: { quiet }`): what it says of a field shows at that field, through the form's errors,
 * and `FormError` shows the rest.
 */
export function useFormSave<Values, Result>(
  form: UseFormReturnType<Values>,
  {
    save,
    onSaved,
    onRefused,
    onInvalid,
  }: {
    save: (values: Values) => Promise<Result>;
    onSaved?: (result: Result, values: Values) => unknown;
    /** After the refusal is in the form's errors, such as to take the person to a field. */
    onRefused?: (error: Error) => void;
    /** When the form's own rules keep it from being sent, with the errors by field. */
    onInvalid?: (errors: Record<string, ReactNode>) => void;
  },
) {
  const mutation = useMutation({
    meta: { quiet: true },
    mutationFn: save,
    onSuccess: onSaved,
    onError: (error) => {
      form.setErrors(fieldErrors(error));
      onRefused?.(error);
    },
  });
  return { mutation, submit: form.onSubmit((values) => mutation.mutate(values), onInvalid) };
}
