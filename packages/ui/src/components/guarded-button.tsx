import { Button, type ButtonProps, Tooltip } from "@mantine/core";
import type { ComponentPropsWithoutRef } from "react";
import type { Verdict } from "../auth/session";

type Props = ButtonProps & ComponentPropsWithoutRef<"button"> & { verdict: Verdict };

/**
 * A button a person may not be allowed to use: disabled, with the reason in its tooltip and
 * its accessible description, rather than an error after the click.
 */
export function GuardedButton({ verdict, disabled, ...props }: Props) {
  if (verdict.allowed) return <Button disabled={disabled} {...props} />;
  return (
    <Tooltip label={verdict.reason} withinPortal>
      <Button {...props} disabled aria-description={verdict.reason} data-reason={verdict.reason} />
    </Tooltip>
  );
}
