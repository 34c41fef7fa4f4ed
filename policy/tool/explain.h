/* mssf-policy list, dump and explain: reading the installed state and the compiled policy. */
#pragma once

typedef struct ToolContext ToolContext;

int tool_list(ToolContext *c);
int tool_dump(ToolContext *c);

typedef struct ExplainQuery {
        const char *label;
        const char *destination;
        const char *path;               /* (nullable) "/" */
        const char *interface;          /* (nullable) */
        const char *member;
        int signal;                     /* a signal from destination to label */
} ExplainQuery;

int tool_explain(ToolContext *c, const ExplainQuery *query);
