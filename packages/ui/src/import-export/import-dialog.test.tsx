import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";

const service = await vi.hoisted(async () => (await import("../../test/fake-service")).installFakeService());

import { renderWithProviders } from "../../test/render";
import { ImportForm } from "./import-dialog";

const FILE = {
  features: [{ name: "checkout", type: "release", project: "default" }],
  featureStrategies: [{ name: "default", featureName: "checkout" }],
  featureEnvironments: [
    { name: "checkout", featureName: "checkout", environment: "development", enabled: true },
  ],
  tagTypes: [],
};

const REFUSED = {
  errors: [
    {
      message: "You cannot import a features that already exist in other projects:",
      affectedItems: ["checkout (in project default)"],
    },
  ],
  warnings: [
    {
      message: "The following features already exist in this project and will be overwritten:",
      affectedItems: ["x"],
    },
  ],
  permissions: [
    { message: "We detected you are missing the following permissions:", affectedItems: ["CREATE_FEATURE"] },
  ],
};
const CLEAN = { errors: [], warnings: [], permissions: [] };

let report: unknown = REFUSED;
beforeEach(() => {
  report = REFUSED;
  service.serve({
    "POST /api/admin/features-batch/validate": () => report,
    "POST /api/admin/features-batch/import": null,
  });
});

async function chooseFile(content: string) {
  const input = document.querySelector<HTMLInputElement>('input[type="file"]');
  if (!input) throw new Error("no file input");
  await userEvent.upload(input, new File([content], "export.json", { type: "application/json" }));
}

const imported = () => service.sent.filter((request) => request.path.endsWith("/import"));

describe("ImportForm", () => {
  it("shows errors, missing permissions and warnings before anything is applied, and errors block importing", async () => {
    renderWithProviders(
      <ImportForm projectId="web" environments={["development", "production"]} onDone={() => {}} />,
    );
    const apply = screen.getByRole("button", { name: "Import" });
    expect(apply).toBeDisabled();
    expect(apply).toHaveAccessibleDescription("Validate the file first.");
    await chooseFile(JSON.stringify(FILE));
    expect(await screen.findByText(/The file holds 1 flag: checkout/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Validate" }));

    const errors = await screen.findByRole("alert", { name: "Errors" });
    expect(errors).toHaveTextContent("checkout (in project default)");
    expect(screen.getByText("Missing permissions")).toBeInTheDocument();
    expect(screen.getByText("CREATE_FEATURE")).toBeInTheDocument();
    expect(screen.getByText("Warnings")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Import" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Import" })).toHaveAccessibleDescription(/The file has errors/);
    expect(service.sent).toEqual([
      {
        method: "POST",
        path: "/api/admin/features-batch/validate",
        body: { project: "web", environment: "development", data: FILE },
      },
    ]);
    expect(imported()).toEqual([]);
  });

  it("blocks importing when permissions are missing, even without errors", async () => {
    report = { ...CLEAN, permissions: REFUSED.permissions };
    renderWithProviders(<ImportForm projectId="web" environments={["development"]} onDone={() => {}} />);
    await chooseFile(JSON.stringify(FILE));
    await userEvent.click(await screen.findByRole("button", { name: "Validate" }));
    await screen.findByText("CREATE_FEATURE");
    expect(screen.getByRole("button", { name: "Import" })).toHaveAccessibleDescription(/lack permissions/);
  });

  it("imports what was validated once nothing would refuse it", async () => {
    report = CLEAN;
    const done = vi.fn();
    renderWithProviders(<ImportForm projectId="web" environments={["development"]} onDone={done} />);
    await chooseFile(JSON.stringify(FILE));
    await userEvent.click(await screen.findByRole("button", { name: "Validate" }));
    expect(await screen.findByText("Ready to import")).toBeInTheDocument();
    const apply = screen.getByRole("button", { name: "Import" });
    expect(apply).toBeEnabled();
    await userEvent.click(apply);
    await waitFor(() => expect(done).toHaveBeenCalled());
    expect(imported()).toEqual([
      {
        method: "POST",
        path: "/api/admin/features-batch/import",
        body: { project: "web", environment: "development", data: FILE },
      },
    ]);
  });

  it("asks for a new validation when the environment changes", async () => {
    report = CLEAN;
    renderWithProviders(
      <ImportForm projectId="web" environments={["development", "production"]} onDone={() => {}} />,
    );
    await chooseFile(JSON.stringify(FILE));
    await userEvent.click(await screen.findByRole("button", { name: "Validate" }));
    await screen.findByText("Ready to import");
    await userEvent.click(screen.getByRole("combobox", { name: "Environment" }));
    await userEvent.click(screen.getByRole("option", { name: "production" }));
    expect(screen.queryByText("Ready to import")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Import" })).toBeDisabled();
  });

  it("says when the file is not an export, and offers no validation", async () => {
    renderWithProviders(<ImportForm projectId="web" environments={["development"]} onDone={() => {}} />);
    await chooseFile("{ not json");
    expect(await screen.findByText(/The file is not JSON/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Validate" })).toBeDisabled();
    await chooseFile(JSON.stringify({ hello: 1 }));
    expect(await screen.findByText(/The file is not an export/)).toBeInTheDocument();
  });
});
