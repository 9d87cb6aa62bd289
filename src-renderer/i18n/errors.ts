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
  // Also what a page whose door was started again (new token) reads: there only the address it printed helps.
  'bridge-closed':
    'The connection to Blocklift was lost; it reconnects by itself (if Blocklift was started again, open the address it printed). Try again in a moment.',
};

export const errorsZhCN: Record<MessageCode, string> = {
  'invalid-input': '请求无效：{{detail}}',
  'unknown-method': '此版本的 Blocklift 没有操作 {{method}}。',
  'not-found': '{{what}} {{id}} 不存在（可能已被移除）。',
  'not-supported-here': '{{what}} 仅在桌面应用中可用。',
  'path-not-found': '{{path}} 不存在。',
  'files-not-added': '未添加：{{files}}',
  'paths-not-found': '有 {{count}} 个路径不存在：{{paths}}。未添加任何文件：请移除它们后重新添加。',
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
  'root-missing': '文件夹 {{path}} 不存在（驱动器已拔出或文件夹已移除？）；它回来后会继续监视。',
  'root-not-a-folder': '{{path}} 不是文件夹。',
  'root-permission-denied': '没有权限读取 {{path}}。',
  'root-unreadable': '无法读取 {{path}}：{{reason}}',
  'root-paused': '由用户暂停。',
  'watch-failed': '无法监视 {{path}}：{{reason}}',
  'permission-denied': '没有权限读取文件夹 {{path}}；其中的文件不会上传。',
  unreadable: '无法读取 {{path}}：{{reason}}',
  'symlink-loop': '链接 {{path}} 指向自身或已在监视中的文件夹（循环，或同一文件夹的第二条路径）；未跟随。',
  'broken-symlink': '链接 {{path}} 的目标不存在。',
  'invalid-name': '{{path}} 的名称不是有效的 UTF-8；请重命名后再上传。',
  'root-empty':
    '{{path}} 已为空，但曾从中上传过 {{count}} 个文件；在文件重新出现或停止监视该文件夹之前，不会删除远端对象。',
  'delete-not-wired': '{{path}} 已在本地删除，但此处无法删除远端对象；{{key}} 予以保留。',
  'delete-failed': '在服务上删除 {{key}} 失败：{{reason}}；稍后会重试。',
  'rename-copy-failed': '在服务端从 {{from}} 复制失败（{{reason}}）；改为上传。',
  'rename-move-failed': '在服务端从 {{from}} 移动失败（{{reason}}）；改为上传。',
  'file-not-queued':
    '{{path}} 未能加入队列：队列数据库拒绝了它的记录（{{detail}}）；其他文件不受影响。保存或重命名该文件即可重试；如果再次失败，请将此消息作为错误报告。',
  'queue-disk-full': '{{count}} 个文件正在等待：数据库所在磁盘已满；释放空间后即加入队列。',
  'queue-busy':
    '已停止变化的文件正在等待加入队列：另一个连接占用着队列数据库（{{detail}}）；数据库空闲后即加入队列。如果持续如此，请退出使用同一数据文件夹的其他 Blocklift 程序（serve、命令行）。',
  'queue-io-error':
    '已停止变化的文件正在等待加入队列：磁盘读写队列数据库失败（{{detail}}）。Blocklift 会自动重试，间隔逐渐拉长；如果持续如此，请检查存放 Blocklift 数据文件夹的磁盘。',
  'queue-damaged':
    '已停止变化的文件正在等待加入队列：队列数据库已损坏（{{detail}}）。Blocklift 会自动重试，间隔逐渐拉长；如果持续如此，请退出 Blocklift 并从备份恢复其数据文件夹中的数据库。',
  'queue-failed':
    '已停止变化的文件正在等待加入队列：无法加入队列（{{detail}}）。Blocklift 会自动重试，间隔逐渐拉长；如果持续如此，请重启 Blocklift 并将此消息作为错误报告。',
  'scan-disk-full': '此文件夹的扫描正在等待：数据库所在磁盘已满；释放空间后继续。',
  'scan-queue-busy':
    '此文件夹的扫描正在等待：另一个连接占用着队列数据库（{{detail}}）；数据库空闲后继续。如果持续如此，请退出使用同一数据文件夹的其他 Blocklift 程序（serve、命令行）。',
  'scan-queue-io-error':
    '此文件夹的扫描正在等待：磁盘读写队列数据库失败（{{detail}}）。Blocklift 会自动重试，间隔逐渐拉长；如果持续如此，请检查存放 Blocklift 数据文件夹的磁盘。',
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
  'bridge-closed':
    '与 Blocklift 的连接已断开，正在自动重连（如果 Blocklift 已重新启动，请打开它打印的地址）。请稍后重试。',
};
