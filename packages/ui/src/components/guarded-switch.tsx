import { Switch, type SwitchProps, Tooltip } from "@mantine/core";
import type { Verdict } from "../auth/session";

/** A switch a person may not be allowed to flip: disabled, with the reason as a tooltip and its description. */
export function GuardedSwitch({ verdict, disabled, ...props }: SwitchProps & { verdict: Verdict }) {
  if (verdict.allowed) return <Switch disabled={disabled} {...props} />;
  return (
    <Tooltip label={verdict.reason} withinPortal>
      {/* A disabled input gets no pointer events: the wrapper is what the tooltip listens to. */}
      <div>
        <Switch {...props} disabled aria-description={verdict.reason} />
      </div>
    </Tooltip>
  );
}
