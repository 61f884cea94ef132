interface ChangeRequestData {
  changeRequestId: number;
}

interface ChangeData extends ChangeRequestData {
  change: { id: number; action: string; payload: unknown };
}

declare module "../events/catalogue.js" {
  interface EventShapes {
    "change-request-created": { data: ChangeRequestData };
    "change-added": { data: ChangeData };
    "change-edited": { data: ChangeData };
    "change-discarded": { data: ChangeRequestData & { changeId: number; action: string } };
    "change-request-discarded": { data: ChangeRequestData };
    "change-request-sent-to-review": { data: ChangeRequestData & { title: string } };
    "change-request-approval-added": {
      data: ChangeRequestData & { approvals: number; minApprovals: number };
    };
    "change-request-approved": { data: ChangeRequestData };
    "change-request-rejected": { data: ChangeRequestData };
    "change-request-cancelled": { data: ChangeRequestData };
    "change-request-applied": { data: ChangeRequestData };
    "change-request-scheduled": { data: ChangeRequestData & { scheduledAt: string } };
    "change-request-schedule-suspended": { data: ChangeRequestData & { reason: string } };
    "change-request-scheduled-application-success": { data: ChangeRequestData };
    "change-request-scheduled-application-failure": { data: ChangeRequestData & { reason: string } };
  }
}

export {};
