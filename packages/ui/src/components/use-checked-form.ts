import { type UseFormInput, type UseFormReturnType, useForm } from "@mantine/form";
import { useState } from "react";

/**
 * A @mantine/form form whose rules are applied on submit, then at every change once a
 * submission was refused: nothing is called wrong while it is first typed, and once errors
 * show they follow what is typed (a field put right loses its error, one made wrong gains
 * one). `refused` says whether they show.
 */
export function useCheckedForm<Values extends Record<string, unknown>>(input: UseFormInput<Values>) {
  const [refused, setRefused] = useState(false);
  const form: UseFormReturnType<Values> = useForm<Values>({
    ...input,
    onValuesChange: () => {
      if (refused) form.validate();
    },
  });
  const onSubmit: typeof form.onSubmit = (handle, onInvalid) =>
    form.onSubmit(handle, (...failure) => {
      setRefused(true);
      onInvalid?.(...failure);
    });
  return { ...form, onSubmit, refused };
}
