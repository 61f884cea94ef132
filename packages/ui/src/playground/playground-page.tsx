import { Loader, Stack } from "@mantine/core";
import { useSearchParams } from "react-router";
import { ErrorPanel } from "../components/error-panel";
import { PageHeader } from "../components/page-header";
import { ContextForm } from "./context-form";
import { inputFromParams, paramsFromInput, requestFromInput, usePlayground } from "./playground-query";
import { Results } from "./results";

/**
 * Every flag evaluated for a context, in one or more environments, with the reasons. What
 * was asked is in the address, so a result can be shared and comes back on reload.
 */
export default function PlaygroundPage() {
  const [params, setParams] = useSearchParams();
  const input = inputFromParams(params);
  const result = usePlayground(requestFromInput(input));

  return (
    <>
      <PageHeader
        title="Playground"
        description="See which flags a given user, session or application gets, and why, without changing anything."
      />
      <Stack gap="xl">
        {/* Remounted when the address changes (back, a shared link), so the form shows what was asked. */}
        <ContextForm
          key={params.toString()}
          initial={input}
          evaluating={result.isFetching}
          onEvaluate={(next) => {
            const asked = paramsFromInput(next);
            // The same question again asks the service again: its flags may have changed.
            if (asked.toString() === params.toString()) void result.refetch();
            else setParams(asked);
          }}
        />
        {result.isError && <ErrorPanel error={result.error} />}
        {result.isFetching && !result.data && <Loader aria-label="Evaluating" />}
        {result.data && <Results answer={result.data} />}
      </Stack>
    </>
  );
}
