/**
 * The message box's icons, drawn in SVG: an emoji (🖼, 🎤) is a blank box where the system has no
 * emoji font (a Linux desktop without one, Debian's chromium), which leaves two buttons nobody can
 * tell apart. Stroked in the text's colour, so they follow the theme and a button's state.
 */

const common = {
  width: 18,
  height: 18,
  viewBox: '0 0 24 24',
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 2,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  'aria-hidden': true,
  focusable: false,
} as const;

/** A picture: a frame, a sun and a hill. */
export function ImageIcon() {
  return (
    <svg {...common} data-icon="image">
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <circle cx="9" cy="10" r="2" />
      <path d="M21 17l-5-5-9 8" />
    </svg>
  );
}

/** A microphone. */
export function MicIcon() {
  return (
    <svg {...common} data-icon="mic">
      <rect x="9" y="3" width="6" height="11" rx="3" />
      <path d="M5 11a7 7 0 0 0 14 0M12 18v3" />
    </svg>
  );
}
