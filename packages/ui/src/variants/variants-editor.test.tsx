import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../test/render";
import type { paths } from "../api/client";
import { type Variant, VariantsEditor, variantsProblem } from "./variants-editor";

const contextFields = vi.hoisted(() => [
  { name: "userId", stickiness: false, legalValues: [] },
  { name: "appName", stickiness: false, legalValues: [] },
  { name: "tenantId", stickiness: true, legalValues: [{ value: "acme" }, { value: "globex" }] },
]);

vi.mock("../api/client", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../api/client")>()),
  api: { GET: async () => ({ data: contextFields, response: new Response() }) },
}));

type FlagVariantsBody =
  paths["/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants"]["put"]["requestBody"]["content"]["application/json"];

const variant = (name: string, extra: Partial<Variant> = {}): Variant => ({
  name,
  weight: 0,
  weightType: "variable",
  stickiness: "default",
  ...extra,
});

/** The editor as a page holds it: the value is whatever onChange last handed on. */
function show(initial: Variant[], kind: "flag" | "strategy" = "flag") {
  const changes = vi.fn<(next: Variant[]) => void>();
  function Page() {
    const [value, setValue] = useState(initial);
    return (
      <VariantsEditor
        value={value}
        kind={kind}
        environment="development"
        onChange={(next) => {
          changes(next);
          setValue(next);
        }}
      />
    );
  }
  renderWithProviders(<Page />);
  const model = () => changes.mock.lastCall![0];
  return { model, user: userEvent.setup() };
}

const group = (name: string | RegExp) => screen.getByRole("group", { name });
const weightOf = (name: string) => within(group(name)).getByRole("textbox", { name: "Weight (%)" });

describe("VariantsEditor", () => {
  it("splits variable weights evenly, as the service does, to a total of 100 %", async () => {
    const { model, user } = show([]);
    for (const name of ["red", "green", "blue"]) {
      await user.click(screen.getByRole("button", { name: "Add variant" }));
      await user.type(within(group(/^Variant \d$/)).getByRole("textbox", { name: "Variant name" }), name);
    }
    expect(weightOf("Variant 1: red")).toHaveValue("33.4");
    expect(weightOf("Variant 2: green")).toHaveValue("33.3");
    expect(weightOf("Variant 3: blue")).toHaveValue("33.3");
    expect(screen.getByText("Total: 100 %")).toBeInTheDocument();
    expect(model().map((v) => [v.name, v.weight])).toEqual([
      ["red", 334],
      ["green", 333],
      ["blue", 333],
    ]);
    expect(variantsProblem(model())).toBeUndefined();
    // The list is the body of the flag's PUT as it stands.
    const body: FlagVariantsBody = model();
    expect(body).toHaveLength(3);
  });

  it("shares what a fixed 25 % leaves among the variable variants", async () => {
    const { model, user } = show([variant("a"), variant("b"), variant("c")]);
    await user.selectOptions(
      within(group("Variant 1: a")).getByRole("combobox", { name: "Weight type" }),
      "fix",
    );
    await user.clear(weightOf("Variant 1: a"));
    await user.type(weightOf("Variant 1: a"), "25");
    expect(weightOf("Variant 2: b")).toHaveValue("37.5");
    expect(weightOf("Variant 3: c")).toHaveValue("37.5");
    expect(model().map((v) => [v.weightType, v.weight])).toEqual([
      ["fix", 250],
      ["variable", 375],
      ["variable", 375],
    ]);
    expect(screen.getByText("Total: 100 %")).toBeInTheDocument();

    await user.clear(weightOf("Variant 1: a"));
    await user.type(weightOf("Variant 1: a"), "12.5");
    expect(weightOf("Variant 1: a")).toHaveValue("12.5");
    expect(model()[0]!.weight).toBe(125);
    expect(weightOf("Variant 2: b")).toHaveValue("43.8");
  });

  it("refuses fixed weights over 100 %, still handing on the draft", async () => {
    const { model, user } = show([
      variant("a", { weightType: "fix", weight: 600 }),
      variant("b"),
      variant("c"),
    ]);
    await user.selectOptions(
      within(group("Variant 2: b")).getByRole("combobox", { name: "Weight type" }),
      "fix",
    );
    await user.clear(weightOf("Variant 2: b"));
    await user.type(weightOf("Variant 2: b"), "50");
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent("Fixed weights add up to 110 %, more than 100 %.");
    expect(screen.getByText("Total: 110 %")).toBeInTheDocument();
    expect(weightOf("Variant 1: a")).toHaveAttribute("aria-invalid", "true");
    expect(model().map((v) => v.weight)).toEqual([600, 500, 0]);
    expect(variantsProblem(model())).toMatch(/^Fixed weights add up to 110 %/);

    await user.clear(weightOf("Variant 2: b"));
    await user.type(weightOf("Variant 2: b"), "30");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(variantsProblem(model())).toBeUndefined();
  });

  it("checks a JSON payload as it is typed", async () => {
    const { model, user } = show([variant("a")]);
    const variantGroup = group("Variant 1: a");
    await user.selectOptions(within(variantGroup).getByRole("combobox", { name: "Payload type" }), "json");
    const payload = within(variantGroup).getByRole("textbox", { name: "Payload" });
    await user.type(payload, '{{"size": ');
    expect(payload).toHaveAttribute("aria-invalid", "true");
    expect(payload).toHaveAccessibleDescription(/Not valid JSON/);
    expect(variantsProblem(model())).toMatch(/^Variant 1: a — Not valid JSON/);

    await user.type(payload, "3}");
    expect(payload).not.toHaveAttribute("aria-invalid", "true");
    expect(payload).not.toHaveAccessibleDescription(/Not valid JSON/);
    expect(model()[0]!.payload).toEqual({ type: "json", value: '{"size": 3}' });

    // An empty payload is none, and the type chosen stays for what is typed next.
    await user.clear(payload);
    expect(model()[0]).not.toHaveProperty("payload");
    expect(within(variantGroup).getByRole("combobox", { name: "Payload type" })).toHaveValue("json");
  });

  it("wants a number payload to be a number", async () => {
    const { model, user } = show([variant("a")]);
    const variantGroup = group("Variant 1: a");
    await user.selectOptions(within(variantGroup).getByRole("combobox", { name: "Payload type" }), "number");
    const payload = within(variantGroup).getByRole("textbox", { name: "Payload" });
    await user.type(payload, "12abc");
    expect(payload).toHaveAttribute("aria-invalid", "true");
    expect(payload).toHaveAccessibleDescription(/Not a number/);

    await user.clear(payload);
    await user.type(payload, "12.5");
    expect(payload).not.toHaveAttribute("aria-invalid", "true");
    expect(model()[0]!.payload).toEqual({ type: "number", value: "12.5" });
  });

  it("puts overrides edited into the variant", async () => {
    const { model, user } = show([variant("a"), variant("b")]);
    const variantGroup = group("Variant 2: b");
    await user.click(within(variantGroup).getByRole("button", { name: "Add override" }));
    const override = within(variantGroup).getByRole("group", { name: "Override 1: userId" });
    await user.type(within(override).getByRole("combobox", { name: "Values" }), "alice{Enter}bob{Enter}");
    expect(model()[1]!.overrides).toEqual([{ contextName: "userId", values: ["alice", "bob"] }]);

    await user.selectOptions(within(override).getByRole("combobox", { name: "Context field" }), "tenantId");
    expect(model()[1]!.overrides).toEqual([{ contextName: "tenantId", values: ["alice", "bob"] }]);
    expect(model()[0]).not.toHaveProperty("overrides");

    await user.click(within(variantGroup).getByRole("button", { name: "Remove override 1" }));
    expect(model()[1]!.overrides).toEqual([]);
  });

  it("has no overrides for strategy variants", async () => {
    show([variant("a")], "strategy");
    expect(screen.getByRole("group", { name: "Strategy variants in development" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Add override" })).not.toBeInTheDocument();
  });

  it("makes every variant sticky on one choice, offering context fields marked for stickiness", async () => {
    const { model, user } = show([variant("a"), variant("b")]);
    const stickiness = screen.getByRole("combobox", { name: "Stickiness" });
    await screen.findByRole("option", { name: "tenantId" });
    expect(within(stickiness).queryByRole("option", { name: "appName" })).not.toBeInTheDocument();
    await user.selectOptions(stickiness, "tenantId");
    expect(model().map((v) => v.stickiness)).toEqual(["tenantId", "tenantId"]);

    await user.click(screen.getByRole("button", { name: "Add variant" }));
    expect(model()[2]!.stickiness).toBe("tenantId");
  });

  it("resettles the weights when a variant is removed, and flags names the service refuses", async () => {
    const { model, user } = show([variant("a"), variant("b"), variant("c")]);
    await user.click(screen.getByRole("button", { name: "Remove Variant 2: b" }));
    expect(model().map((v) => [v.name, v.weight])).toEqual([
      ["a", 500],
      ["c", 500],
    ]);
    const name = within(group("Variant 2: c")).getByRole("textbox", { name: "Variant name" });
    await user.clear(name);
    await user.type(name, "a");
    expect(name).toHaveAccessibleDescription("Another variant is already called a.");
    expect(variantsProblem(model())).toBe("Variant 2: a — Another variant is already called a.");
  });
});
