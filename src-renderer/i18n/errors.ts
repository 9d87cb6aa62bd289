/**
 * Error messages by code, in every language. English comes from the catalog itself
 * (src-main/shared/errors.ts) with its `{param}` placeholders turned into i18next's
 * `{{param}}`; Chinese is written here, one entry per code (the type refuses a missing one).
 */
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode } from '../../src-main/shared/errors';
import type { BridgeErrorCode } from '../bridge/bridge';

export type MessageCode = ErrorCode | BridgeErrorCode;

const toI18next = (template: string) => template.replace(/\{(\w+)\}/g, '{{$1}}');

export const errorsEn: Record<MessageCode, string> = {
  ...(Object.fromEntries(ERROR_CODES.map((c) => [c, toI18next(ERROR_CATALOG[c].en)])) as Record<ErrorCode, string>),
  'bridge-closed': 'The connection to Blocklift was lost; it reconnects by itself. Try again in a moment.',
};

export const errorsZhCN: Record<MessageCode, string> = {
  'invalid-input': '请求无效：{{detail}}',
  'unknown-method': '此版本的 Blocklift 没有操作 {{method}}。',
  'not-found': '{{what}} {{id}} 不存在（可能已被移除）。',
  'not-supported-here': '{{what}} 仅在桌面应用中可用。',
  'path-not-found': '{{path}} 不存在。',
  'path-unreadable': '无法读取 {{path}}：{{reason}}',
  'path-not-file-or-folder': '{{path}} 既不是文件也不是文件夹。',
  'broken-link': '{{path}} 是目标缺失或循环的符号链接。',
  'symlink-skipped': '{{path}} 是文件夹内的符号链接，未跟随。',
  'disk-full': '{{path}} 所在磁盘已满；释放空间后上传将继续。',
  'key-invalid': '无法使用键 “{{key}}”：{{reason}}',
  'key-collision': '两个文件会得到相同的键 “{{key}}”：{{first}} 和 {{second}}。',
  'bucket-missing': '请选择要上传到的存储空间。',
  'no-account': '尚未配置账户；请在设置中添加，或使用本地模拟器。',
  'root-refused': '无法监视 {{path}}：{{reason}}',
  'root-exists': '{{path}} 已在监视中。',
  'invalid-watch-options': '文件夹选项无效：{{detail}}',
  'invalid-schedule': '上传计划无效：{{detail}}',
  'invalid-setting': '设置项 {{name}} 无效：{{detail}}',
  'account-invalid': '账户无效：{{detail}}',
  'account-in-use': '账户 {{name}} 正被 {{count}} 个传输或文件夹使用。',
  'account-local-readonly': '本地账户属于内置模拟器，不能修改。',
  'secret-store-unavailable': '无法安全地保存密钥：{{reason}}',
  'account-credentials-refused':
    '服务拒绝了账户 {{account}} 的凭证（{{detail}}）；该账户的上传已暂停，重新保存账户或测试通过后继续。',
  'service-unreachable': '无法连接服务 {{url}}：{{reason}}',
  'service-auth-failed': '服务拒绝了凭证（{{status}}）：{{message}}',
  'service-error': '服务返回 {{status}}：{{message}}',
  'service-bad-reply': '服务返回了 Blocklift 无法读取的响应：{{detail}}',
  'fmgr-invalid-op': 'Fmgr 操作无效：{{detail}}',
  'vca-not-enabled': '此账户未开通视频分析。',
  'vca-error': '{{message}}',
  'transfer-failed': '{{key}} 上传失败：{{message}}',
  'queue-in-use': '队列数据库正被进程 {{pid}} 使用；请等待或停止该进程。',
  'database-error': '队列数据库出错：{{detail}}',
  'door-token-missing': '此请求没有有效的访问令牌：请打开 blocklift serve 启动时打印的地址（其中带有令牌）。',
  'door-host-refused': '此处不提供主机 {{host}} 的请求；请使用 blocklift serve 启动时打印的地址。',
  'door-origin-refused': '来自页面 {{origin}} 的请求被拒绝；只有 Blocklift 自己的页面可以连接。',
  internal: 'Blocklift 内部出错：{{detail}}。详情见事件日志。',
  'bridge-closed': '与 Blocklift 的连接已断开，正在自动重连。请稍后重试。',
};
