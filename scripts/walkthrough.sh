#!/usr/bin/env bash
# The curl walkthrough of docs/api.md, checked: each step prints its request and answer, and the
# script stops with a non-zero exit at the first answer that differs from the documented one.
#
#   scripts/walkthrough.sh [BASE_URL]        (default http://127.0.0.1:3000, a running server)
#
# Needs curl and node. Emails get a per-run suffix so the walkthrough can run again on the same data.
set -euo pipefail

BASE_URL="${1:-${BASE_URL:-http://127.0.0.1:3000}}"
API="$BASE_URL/api/v1"
RUN="${RUN:-$(date +%s)$RANDOM}"
ADA_EMAIL="ada-$RUN@example.com"
GRACE_EMAIL="grace-$RUN@example.com"

fail() { printf '\nWALKTHROUGH FAILED: %s\n' "$*" >&2; exit 1; }

# field PATH: prints a field of the JSON on stdin (`user.id`, `0.title`, `length`), objects as JSON.
field() {
  node -e '
    let text = "";
    process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
      const value = process.argv[1].split(".").filter(Boolean).reduce((node, key) => node?.[key], JSON.parse(text));
      console.log(value !== null && typeof value === "object" ? JSON.stringify(value) : String(value));
    });' "$1"
}

# call STATUS METHOD PATH [BODY] [TOKEN]: one request; the body lands in $BODY, the status must match.
call() {
  local expected="$1" method="$2" path="$3" body="${4:-}" token="${5:-}"
  local args=(-sS -o /tmp/walkthrough-body.$$ -w '%{http_code}' -X "$method" "$API$path")
  [[ -n "$token" ]] && args+=(-H "Authorization: Bearer $token")
  [[ -n "$body" ]] && args+=(-H 'Content-Type: application/json' -d "$body")
  printf '\n$ curl -X %s %s%s%s\n' "$method" "\$API$path" "${token:+ -H 'Authorization: Bearer …'}" "${body:+ -d '$body'}"
  STATUS=$(curl "${args[@]}") || fail "curl could not reach $API$path"
  BODY=$(cat /tmp/walkthrough-body.$$)
  rm -f /tmp/walkthrough-body.$$
  printf '%s\n%s\n' "$STATUS" "$BODY"
  [[ "$STATUS" == "$expected" ]] || fail "$method $path answered $STATUS, expected $expected"
}

# expect PATH VALUE: a field of the last answer.
expect() {
  local actual
  actual=$(printf '%s' "$BODY" | field "$1")
  [[ "$actual" == "$2" ]] || fail "$1 is '$actual', expected '$2'"
}

echo "== Walkthrough against $API"

echo; echo '-- 1. Register two users (201) and log in (200)'
call 201 POST /auth/register "{\"name\":\"Ada Lovelace\",\"email\":\"$ADA_EMAIL\",\"password\":\"analytical-engine\"}"
expect token_type Bearer; expect user.email "$ADA_EMAIL"; expect user.password undefined
ADA_ID=$(printf '%s' "$BODY" | field user.id)
call 201 POST /auth/register "{\"name\":\"Grace Hopper\",\"email\":\"$GRACE_EMAIL\",\"password\":\"compiler-1952\"}"
GRACE_ID=$(printf '%s' "$BODY" | field user.id)
GRACE=$(printf '%s' "$BODY" | field access_token)
call 200 POST /auth/login "{\"email\":\"$ADA_EMAIL\",\"password\":\"analytical-engine\"}"
expect user.id "$ADA_ID"
ADA=$(printf '%s' "$BODY" | field access_token)
call 200 GET /auth/me '' "$ADA"
expect id "$ADA_ID"; expect name 'Ada Lovelace'

echo; echo '-- 2. Create, list, get and update a project'
call 201 POST /projects '{"name":"Analytical Engine","description":"Notes and programs"}' "$ADA"
expect ownerId "$ADA_ID"; expect role ADMIN
PROJECT=$(printf '%s' "$BODY" | field id)
call 200 GET /projects '' "$ADA"
expect length 1; expect 0.id "$PROJECT"
call 200 GET "/projects/$PROJECT" '' "$ADA"
expect name 'Analytical Engine'
call 200 PATCH "/projects/$PROJECT" '{"description":"Notes, programs and the Bernoulli table"}' "$ADA"
expect description 'Notes, programs and the Bernoulli table'

echo; echo '-- 3. Invite Grace (VIEWER by default); a VIEWER may not create tasks (403); make her EDITOR'
call 201 POST "/projects/$PROJECT/members/invite" "{\"email\":\"$GRACE_EMAIL\"}" "$ADA"
expect role VIEWER; expect userId "$GRACE_ID"
MEMBER=$(printf '%s' "$BODY" | field id)
call 403 POST /tasks "{\"title\":\"Compile\",\"projectId\":\"$PROJECT\"}" "$GRACE"
expect code FORBIDDEN
call 200 PATCH "/projects/$PROJECT/members/$MEMBER/role" '{"role":"EDITOR"}' "$ADA"
expect role EDITOR

echo; echo '-- 4. Tasks: create (201), list, get, update (200)'
call 201 POST /tasks "{\"title\":\"Punch the cards\",\"projectId\":\"$PROJECT\"}" "$GRACE"
expect status TODO; expect priority MEDIUM; expect createdById "$GRACE_ID"; expect assigneeId null
TASK=$(printf '%s' "$BODY" | field id)
call 201 POST /tasks "{\"title\":\"Compute Bernoulli numbers\",\"projectId\":\"$PROJECT\",\"priority\":\"HIGH\",\"dueDate\":\"2026-12-10T18:00:00+01:00\",\"assigneeId\":\"$GRACE_ID\"}" "$ADA"
expect priority HIGH; expect dueDate 2026-12-10T17:00:00.000Z; expect assigneeId "$GRACE_ID"
call 200 GET "/tasks/project/$PROJECT" '' "$ADA"
expect length 2; expect 0.title 'Punch the cards'
call 200 GET "/tasks/project/$PROJECT?status=TODO&priority=HIGH" '' "$ADA"
expect length 1; expect 0.title 'Compute Bernoulli numbers'
call 200 GET "/tasks?assigneeId=me" '' "$GRACE"
expect length 1
call 200 GET "/tasks/$TASK" '' "$GRACE"
expect title 'Punch the cards'
call 200 PATCH "/tasks/$TASK" '{"status":"DONE"}' "$GRACE"
expect status DONE
[[ "$(printf '%s' "$BODY" | field completedAt)" != null ]] || fail 'completedAt not set on DONE'

echo; echo '-- 5. Comment (201), delete the task (200), then it is gone (404)'
call 201 POST "/tasks/$TASK/comments" '{"text":"All cards punched."}' "$GRACE"
expect authorId "$GRACE_ID"; expect taskId "$TASK"

echo; echo '-- 5a. Attach a file to the task (201), read it back without a token through its signed link'
NOTE_FILE=$(mktemp)
trap 'rm -f "$NOTE_FILE"' EXIT
printf 'B1 = -1/2, B2 = 1/6, B4 = -1/30\n' > "$NOTE_FILE"
printf '\n$ curl -X POST $API/tasks/$TASK/attachments -H '"'"'Authorization: Bearer …'"'"' -F file=@bernoulli.txt\n'
STATUS=$(curl -sS -o "$NOTE_FILE.answer" -w '%{http_code}' -X POST "$API/tasks/$TASK/attachments" -H "Authorization: Bearer $GRACE" -F "file=@$NOTE_FILE;filename=bernoulli.txt") || fail 'curl could not upload'
BODY=$(cat "$NOTE_FILE.answer"); rm -f "$NOTE_FILE.answer"
printf '%s\n%s\n' "$STATUS" "$BODY"
[[ "$STATUS" == 201 ]] || fail "the upload answered $STATUS, expected 201"
expect filename bernoulli.txt; expect contentType application/octet-stream; expect taskId "$TASK"
FILE=$(printf '%s' "$BODY" | field id)
LINK=$(printf '%s' "$BODY" | field downloadUrl)
printf '\n$ curl %s\n' "$BASE_URL$LINK"
[[ "$(curl -sS "$BASE_URL$LINK")" == "$(cat "$NOTE_FILE")" ]] || fail 'the signed link did not give back the uploaded bytes'
echo 'the same bytes'
call 200 GET "/tasks/$TASK" '' "$GRACE"
expect attachmentCount 1
call 200 DELETE "/tasks/$TASK" '' "$GRACE"
expect message 'Task deleted'
call 404 GET "/tasks/$TASK" '' "$GRACE"
expect code NOT_FOUND

echo; echo '-- 5b. Start dates: a task from start to due (201), a due date before its start refused (400), the window filter'
call 201 POST /tasks "{\"title\":\"Plan the launch\",\"projectId\":\"$PROJECT\",\"startDate\":\"2026-11-30T09:00:00Z\",\"dueDate\":\"2026-12-04T17:00:00Z\"}" "$GRACE"
expect startDate '2026-11-30T09:00:00.000Z'
PLAN=$(printf '%s' "$BODY" | field id)
call 400 PATCH "/tasks/$PLAN" '{"dueDate":"2026-11-29T00:00:00Z"}' "$GRACE"
expect reason START_AFTER_DUE; expect issues.0.path '["startDate"]'
call 200 GET "/tasks/project/$PROJECT?startBefore=2026-12-28T00:00:00Z&dueAfter=2026-11-30T00:00:00Z" '' "$GRACE"
expect length 1; expect 0.id "$PLAN"

echo; echo '-- 6. Errors'
call 401 GET /projects
expect code UNAUTHORIZED
call 400 POST /tasks "{\"title\":\"\",\"projectId\":\"$PROJECT\",\"colour\":\"red\"}" "$ADA"
expect code BAD_REQUEST; expect issues.0.path '["title"]'; expect issues.1.path '["colour"]'
call 409 POST /auth/register "{\"name\":\"Ada again\",\"email\":\"$ADA_EMAIL\",\"password\":\"analytical-engine\"}"
expect reason EMAIL_TAKEN
call 403 DELETE "/projects/$PROJECT" '' "$GRACE"
expect code FORBIDDEN

echo; echo '-- 7. Delete the project (owner only): its tasks, comments and memberships go with it'
call 200 DELETE "/projects/$PROJECT" '' "$ADA"
expect message 'Project deleted'
call 404 GET "/projects/$PROJECT" '' "$GRACE"

printf '\n== Walkthrough OK: every step answered as documented.\n'
