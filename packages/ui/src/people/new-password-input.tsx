import { PasswordInput, Text } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { api, unwrap } from "../api/client";
import { fieldError } from "../components/form-error";
import { queryKeys } from "../query-keys";

/**
 * A new password, checked against the service's password policy while it is typed: the
 * service's own words say which rules it breaks.
 */
export function NewPasswordInput({
  label,
  description,
  value,
  onChange,
  error,
  required = false,
}: {
  label: string;
  description?: string;
  value: string;
  onChange: (value: string) => void;
  error?: ReactNode;
  required?: boolean;
}) {
  const [typed] = useDebouncedValue(value, 400);
  const check = useQuery({
    queryKey: queryKeys.session.passwordPolicy(typed),
    queryFn: async () => {
      await unwrap(api.POST("/api/admin/user-admin/validate-password", { body: { password: typed } }));
      return true;
    },
    enabled: typed !== "",
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const weak = typed === value ? fieldError(check.error, "password") : undefined;
  return (
    <PasswordInput
      label={label}
      required={required}
      autoComplete="new-password"
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      error={error ?? weak}
      description={
        check.isSuccess && typed === value ? (
          <Text span size="xs" c="teal">
            Strong enough.
          </Text>
        ) : (
          description
        )
      }
    />
  );
}
