// placeholder: tests arrive with their module
