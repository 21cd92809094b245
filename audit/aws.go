package audit

import "strings"

// awsSecrets finds what may be an AWS secret access key or session token:
// a run of 40 or more base64 characters (and its = padding) standing
// alone, with upper and lower case letters and digits (a git commit id or
// another hex digest has no upper case) and not shaped like a path (a path
// starts with / or has a / every few characters).
func awsSecrets(text string) []span {
	var spans []span
	for i := 0; i < len(text); {
		if !base64Char(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && base64Char(text[j]) {
			j++
		}
		end := j
		for end < len(text) && end-j < 2 && text[end] == '=' {
			end++
		}
		if j-i >= 40 && (end == len(text) || text[end] != '=') && awsShaped(text[i:j]) {
			spans = append(spans, span{i, end})
		}
		i = end
	}
	return spans
}

func awsShaped(s string) bool {
	if s[0] == '/' || strings.Count(s, "/")*10 > len(s) {
		return false
	}
	return strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(s, "0123456789")
}

func base64Char(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '+'
}
