import { type Notice, noticeText, noticeTitle } from "../notice.js";

/**
 * A Slack incoming webhook's message (https://api.slack.com/messaging/webhooks): a JSON body whose `text` is the
 * notification's and the fallback of the `blocks` — a header, the message in mrkdwn, and a button to the console.
 */
export function slackMessage(notice: Notice): Record<string, unknown> {
  const { alert } = notice;
  return {
    text: `${noticeTitle(notice)}: ${alert.message}`,
    blocks: [
      { type: "header", text: { type: "plain_text", text: noticeTitle(notice).slice(0, 150) } },
      { type: "section", text: { type: "mrkdwn", text: escapeSlack(alert.message) } },
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: `Since ${alert.openedAt} · count ${alert.count} · ${alert.resourceType} ${alert.resourceId}`,
          },
        ],
      },
      {
        type: "actions",
        elements: [{ type: "button", text: { type: "plain_text", text: "Open in the console" }, url: notice.url }],
      },
    ],
  };
}

/**
 * A Microsoft Teams incoming webhook's message with an Adaptive Card (Microsoft's "Send Adaptive Cards using an
 * Incoming Webhook", learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using):
 * `{type: "message", attachments: [{contentType: "application/vnd.microsoft.card.adaptive", content: <card>}]}` —
 * the shape Teams' Workflows webhooks take as well as the retired Office 365 connectors.
 */
export function teamsMessage(notice: Notice): Record<string, unknown> {
  const { alert } = notice;
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            { type: "TextBlock", size: "Medium", weight: "Bolder", text: noticeTitle(notice), wrap: true },
            { type: "TextBlock", text: alert.message, wrap: true },
            {
              type: "FactSet",
              facts: [
                { title: "Since", value: alert.openedAt },
                { title: "Count", value: String(alert.count) },
                { title: "Resource", value: `${alert.resourceType} ${alert.resourceId}` },
              ],
            },
          ],
          actions: [{ type: "Action.OpenUrl", title: "Open in the console", url: notice.url }],
          fallbackText: noticeText(notice),
        },
      },
    ],
  };
}

/** Slack's mrkdwn gives `&`, `<` and `>` meaning: sent as its documented escapes. */
function escapeSlack(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
