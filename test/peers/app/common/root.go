package main

import (
	"io"
	"os"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/spf13/cobra"

	"cosmossdk.io/client/v2/autocli"
	clientv2keyring "cosmossdk.io/client/v2/autocli/keyring"
	"cosmossdk.io/core/address"
	"cosmossdk.io/depinject"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/config"
	"github.com/cosmos/cosmos-sdk/client/keys"
	"github.com/cosmos/cosmos-sdk/client/rpc"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	"github.com/cosmos/cosmos-sdk/server"
	svrcmd "github.com/cosmos/cosmos-sdk/server/cmd"
	serverconfig "github.com/cosmos/cosmos-sdk/server/config"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	authcmd "github.com/cosmos/cosmos-sdk/x/auth/client/cli"
	"github.com/cosmos/cosmos-sdk/x/auth/tx"
	authtxconfig "github.com/cosmos/cosmos-sdk/x/auth/tx/config"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	genutilcli "github.com/cosmos/cosmos-sdk/x/genutil/client/cli"
)

func main() {
	root := newRootCmd()
	if err := svrcmd.Execute(root, "", DefaultNodeHome); err != nil {
		_, _ = io.WriteString(root.OutOrStderr(), err.Error()+"\n")
		os.Exit(1)
	}
}

// appOptions are the options the client side wires the modules with (autocli only reads their descriptors).
type appOptions map[string]any

func (o appOptions) Get(key string) any { return o[key] }

// newRootCmd is `appd`: init, genesis, start and the other server commands, keys, and the module commands
// autocli builds from the modules (query/tx upgrade among them), as the SDK's depinject apps do.
func newRootCmd() *cobra.Command {
	var (
		autoCliOpts autocli.AppOptions
		basics      module.BasicManager
		clientCtx   client.Context
	)
	if err := depinject.Inject(
		depinject.Configs(appConfig(), depinject.Supply(nopLogger(), servertypes.AppOptions(appOptions{})), depinject.Provide(ProvideClientContext, ProvideKeyring)),
		&autoCliOpts, &basics, &clientCtx,
	); err != nil {
		panic(err)
	}

	root := &cobra.Command{
		Use:           "appd",
		Short:         "a minimal Cosmos SDK chain (xupgrade's interop peer)",
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(cmd.OutOrStdout())
			cmd.SetErr(cmd.ErrOrStderr())
			ctx := clientCtx.WithCmdContext(cmd.Context())
			ctx, err := client.ReadPersistentCommandFlags(ctx, cmd.Flags())
			if err != nil {
				return err
			}
			if ctx, err = config.ReadFromClientConfig(ctx); err != nil {
				return err
			}
			if err := client.SetCmdClientContextHandler(ctx, cmd); err != nil {
				return err
			}
			// As simapp: a zero minimum gas price by default, so a fresh node starts.
			srvCfg := serverconfig.DefaultConfig()
			srvCfg.MinGasPrices = "0stake"
			return server.InterceptConfigsPreRunHandler(cmd, serverconfig.DefaultConfigTemplate, srvCfg, cmtcfg.DefaultConfig())
		},
	}

	root.AddCommand(genutilcli.InitCmd(basics, DefaultNodeHome))
	server.AddCommands(root, DefaultNodeHome, newApp, exportApp, func(*cobra.Command) {}) // newApp, exportApp: line.go
	root.AddCommand(
		server.StatusCommand(),
		genutilcli.Commands(clientCtx.TxConfig, basics, DefaultNodeHome),
		queryCommand(),
		txCommand(),
		keys.Commands(),
	)
	if err := autoCliOpts.EnhanceRootCommand(root); err != nil {
		panic(err)
	}
	return root
}

func queryCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "query", Aliases: []string{"q"}, Short: "Querying subcommands", RunE: client.ValidateCmd}
	cmd.AddCommand(rpc.QueryEventForTxCmd(), server.QueryBlockCmd(), server.QueryBlocksCmd(), server.QueryBlockResultsCmd(), authcmd.QueryTxCmd(), authcmd.QueryTxsByEventsCmd())
	return cmd
}

func txCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "tx", Short: "Transactions subcommands", RunE: client.ValidateCmd}
	cmd.AddCommand(authcmd.GetSignCommand(), authcmd.GetBroadcastCommand(), authcmd.GetEncodeCommand(), authcmd.GetDecodeCommand(), authcmd.GetSimulateCmd())
	return cmd
}

// ProvideClientContext and ProvideKeyring are depinject providers (which must be exported).
func ProvideClientContext(cdc codec.Codec, registry codectypes.InterfaceRegistry, txConfigOpts tx.ConfigOptions, amino *codec.LegacyAmino) client.Context {
	ctx := client.Context{}.
		WithCodec(cdc).
		WithInterfaceRegistry(registry).
		WithLegacyAmino(amino).
		WithInput(os.Stdin).
		WithAccountRetriever(authtypes.AccountRetriever{}).
		WithHomeDir(DefaultNodeHome).
		WithViper("")
	ctx, _ = config.ReadFromClientConfig(ctx)
	// SIGN_MODE_TEXTUAL reads coin metadata over gRPC on the client side.
	txConfigOpts.TextualCoinMetadataQueryFn = authtxconfig.NewGRPCCoinMetadataQueryFn(ctx)
	txConfig, err := tx.NewTxConfigWithOptions(ctx.Codec, txConfigOpts)
	if err != nil {
		panic(err)
	}
	return ctx.WithTxConfig(txConfig)
}

func ProvideKeyring(ctx client.Context, _ address.Codec) (clientv2keyring.Keyring, error) {
	kb, err := client.NewKeyringFromBackend(ctx, ctx.Keyring.Backend())
	if err != nil {
		return nil, err
	}
	return keyring.NewAutoCLIKeyring(kb)
}
