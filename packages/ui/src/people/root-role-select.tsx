import { Select } from "@mantine/core";
import type { ReactNode } from "react";
import type { RootRole } from "./queries";

/** The root role choice every kind of account shares. */
export function RootRoleSelect({
  rootRoles,
  value,
  onChange,
  error,
}: {
  rootRoles: readonly RootRole[];
  value: number | null;
  onChange: (id: number) => void;
  error?: ReactNode;
}) {
  return (
    <Select
      label="Root role"
      description="What they may do outside the projects they are members of."
      required
      data={rootRoles.map((role) => ({ value: String(role.id), label: role.name }))}
      value={value === null ? null : String(value)}
      onChange={(chosen) => chosen && onChange(Number(chosen))}
      allowDeselect={false}
      error={error}
    />
  );
}
